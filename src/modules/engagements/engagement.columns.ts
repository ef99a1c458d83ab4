import { AUDIT_COLUMNS, defineColumns, enumOf, ID, ID_LIST, TEXT } from "../../query-language/index.js";

/** Accounting period `frequency` (wire reference 7), as stored. */
export const FREQUENCIES = ["ANNUAL", "SEMI_ANNUAL", "QUARTERLY", "MONTHLY", "THIRTEEN_PERIODS"] as const;

export const engagementColumns = defineColumns("engagements", {
  ...AUDIT_COLUMNS,
  organizationId: ID,
  name: TEXT,
  libraryId: ID,
  accountingPackage: TEXT,
  auditPeriodEndDate: { type: "DATE", equalitySearch: true, rangeSearch: true, sortable: true },
  industry: TEXT,
  auditorIds: ID_LIST,
  engagementLeadId: ID,
  billingCode: TEXT,
  reportingPeriodConfigurationId: ID,
  frequency: enumOf(FREQUENCIES),
});
