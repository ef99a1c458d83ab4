import { AUDIT_COLUMNS, defineColumns, enumOf, ID, TEXT } from "../../query-language/index.js";
import { ASYNC_STATUSES } from "../../jobs/index.js";

export const CATALOG_SOURCES = ["DATA_TABLE", "CONNECTION", "DATA_FLOW"] as const;
export const OPERATION_TYPES = ["REMAP"] as const;

export const dataCatalogEntryColumns = defineColumns("data catalog entries", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  source: enumOf(CATALOG_SOURCES),
  dataTableId: ID,
  connectionId: ID,
  tableId: TEXT,
  dataFlowId: ID,
});

export const dataFlowColumns = defineColumns("data flows", { ...AUDIT_COLUMNS, name: TEXT, inputDataCatalogEntryId: ID });

export const importTaskColumns = defineColumns("data source import tasks", {
  ...AUDIT_COLUMNS,
  dataCatalogEntryId: ID,
  dataFlowId: ID,
  connectionId: ID,
  analysisId: ID,
  engagementId: ID,
  dataTableId: ID,
  status: enumOf(ASYNC_STATUSES),
});
