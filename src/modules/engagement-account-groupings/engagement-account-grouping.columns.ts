import { AUDIT_COLUMNS, defineColumns, ENUM, FLAG, ID, TEXT } from "../../query-language/index.js";
import { GROUP_COLUMNS } from "../account-groupings/account-grouping.columns.js";

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
  origin: ENUM,
});
