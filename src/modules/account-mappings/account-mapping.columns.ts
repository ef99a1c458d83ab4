import { AUDIT_COLUMNS, defineColumns, enumOf, ID, ID_LIST, TEXT } from "../../query-language/index.js";

/** Account mapping `status` (wire reference 7). USED and UNUSED are never stored (usage is usedByAnalysisSources), so filtering on them matches nothing. */
export const ACCOUNT_MAPPING_STATUSES = ["MANUAL", "MAC_CODE", "MODIFIED_MAC", "UNVERIFIED", "VERIFIED", "INFERRED", "UNMAPPED", "USED", "UNUSED"] as const;

export const accountMappingColumns = defineColumns("account mapping", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  account: TEXT,
  accountDescription: TEXT,
  code: TEXT,
  fundId: TEXT,
  status: enumOf(ACCOUNT_MAPPING_STATUSES),
  accountTags: { type: "ARRAY_STRINGS", containsSearch: true },
  usedByAnalysisSources: ID_LIST,
});
