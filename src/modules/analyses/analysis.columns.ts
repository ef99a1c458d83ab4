import { AUDIT_COLUMNS, defineColumns, FLAG, ID, TEXT } from "../../query-language/index.js";

export const analysisColumns = defineColumns("analyses", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisTypeId: ID,
  name: TEXT,
  interim: FLAG,
  periodic: FLAG,
  archived: FLAG,
  converted: FLAG,
  currencyCode: { type: "STRING", equalitySearch: true, sortable: true },
  referenceId: TEXT,
  latestAnalysisResultId: ID,
  reportingPeriodConfigurationId: ID,
});
