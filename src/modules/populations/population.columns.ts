import { AUDIT_COLUMNS, defineColumns, FLAG, ID, TEXT } from "../../query-language/index.js";

export const populationColumns = defineColumns("populations", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  libraryId: ID,
  engagementId: ID,
  analysisId: ID,
  analysisTypeId: ID,
  basePopulationId: ID,
  disabled: FLAG,
  derivedFromLibrary: FLAG,
  derivedFromEngagement: FLAG,
  promotedFromAnalysisId: ID,
});
