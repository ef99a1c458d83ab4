import { AUDIT_COLUMNS, defineColumns, ENUM, FLAG, ID, ID_LIST, TEXT } from "../../query-language/index.js";

export const libraryColumns = defineColumns("libraries", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  basedOnLibraryId: ID,
  originalSystemLibraryId: ID,
  accountGroupingId: ID,
  analysisTypeIds: ID_LIST,
  archived: FLAG,
  system: FLAG,
  riskScoreDisplay: ENUM,
});
