import { AUDIT_COLUMNS, defineColumns, ENUM, ID, ID_LIST, TEXT } from "../../query-language/index.js";

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
  frequency: ENUM,
});
