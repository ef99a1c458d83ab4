import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID } from "../../query-language/index.js";

export const FILTER_TYPES = ["LIBRARY", "ORGANIZATION", "PRIVATE", "ENGAGEMENT"] as const;
export const FILTER_DATA_TYPES = ["TRANSACTIONS", "ENTRIES", "LIBRARY"] as const;

export const savedFilterColumns = defineColumns("saved filters", {
  ...AUDIT_COLUMNS,
  filterType: enumOf(FILTER_TYPES),
  dataType: enumOf(FILTER_DATA_TYPES),
  libraryId: ID,
  organizationId: ID,
  engagementId: ID,
  analysisTypeId: ID,
  legacyFilterFormat: FLAG,
});
