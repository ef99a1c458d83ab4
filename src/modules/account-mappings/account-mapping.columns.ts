import { AUDIT_COLUMNS, defineColumns, ENUM, ID, ID_LIST, TEXT } from "../../query-language/index.js";

export const accountMappingColumns = defineColumns("account mapping", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  account: TEXT,
  accountDescription: TEXT,
  code: TEXT,
  fundId: TEXT,
  status: ENUM,
  accountTags: { type: "ARRAY_STRINGS", containsSearch: true },
  usedByAnalysisSources: ID_LIST,
});
