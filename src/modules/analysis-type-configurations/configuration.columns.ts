import { AUDIT_COLUMNS, defineColumns, FLAG, ID } from "../../query-language/index.js";

export const configurationColumns = defineColumns("analysis type configurations", {
  ...AUDIT_COLUMNS,
  libraryId: ID,
  engagementId: ID,
  analysisId: ID,
  analysisTypeId: ID,
  system: FLAG,
  template: FLAG,
});
