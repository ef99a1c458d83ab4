import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID, ID_LIST, TEXT } from "../../query-language/index.js";

/** Library `riskScoreDisplay` (wire reference 7), as stored. */
export const RISK_SCORE_DISPLAYS = ["HIGH_MEDIUM_LOW", "PERCENTAGE"] as const;

export const libraryColumns = defineColumns("libraries", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  basedOnLibraryId: ID,
  originalSystemLibraryId: ID,
  accountGroupingId: ID,
  analysisTypeIds: ID_LIST,
  archived: FLAG,
  system: FLAG,
  riskScoreDisplay: enumOf(RISK_SCORE_DISPLAYS),
});
