import { AUDIT_COLUMNS, defineColumns, FLAG, ID, TEXT } from "../../query-language/index.js";

export const riskRangeColumns = defineColumns("risk ranges", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  analysisTypeId: ID,
  libraryId: ID,
  engagementId: ID,
  system: FLAG,
});
