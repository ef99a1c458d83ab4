import { AUDIT_COLUMNS, defineColumns, ID, ID_LIST, TEXT } from "../../query-language/index.js";

export const apiTokenColumns = defineColumns("api-tokens", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  userId: ID,
  expiry: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
  permissions: ID_LIST,
  partialToken: { type: "STRING", equalitySearch: true },
});
