import { AUDIT_COLUMNS, defineColumns, ID_LIST, TEXT } from "../../query-language/index.js";

/** What POST /organizations/query and `organizations(filter:)` can filter and sort on. */
export const organizationColumns = defineColumns("organizations", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  externalClientCode: TEXT,
  managerUserIds: ID_LIST,
});
