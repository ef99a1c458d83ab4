import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID, TEXT } from "../../query-language/index.js";
import { GROUP_COLUMNS } from "../account-groupings/account-grouping.columns.js";

/** Engagement account group `origin` (wire reference 7), as stored. */
export const GROUP_ORIGINS = ["IMPORTED_FROM_LIBRARY", "IMPORTED_FROM_ENGAGEMENT", "ADDED_ON_ENGAGEMENT"] as const;

export const engagementAccountGroupingColumns = defineColumns("engagement account grouping", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  accountGroupingId: ID,
});

export const engagementAccountGroupColumns = defineColumns("engagement account group", {
  ...GROUP_COLUMNS,
  engagementAccountGroupingId: ID,
  alias: TEXT,
  hidden: FLAG,
  origin: enumOf(GROUP_ORIGINS),
});
