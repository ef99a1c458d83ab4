import { AUDIT_COLUMNS, defineColumns, enumOf, ID, TEXT } from "../../query-language/index.js";
import { API_STABILITIES } from "./data-table-definition.js";

/** What POST /data-tables/query and `dataTables(filter:)` can filter and sort on. */
export const dataTableColumns = defineColumns("data tables", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisSourceId: ID,
  analysisResultId: ID,
  logicalName: TEXT,
  type: TEXT,
  apiStability: enumOf(API_STABILITIES),
});
