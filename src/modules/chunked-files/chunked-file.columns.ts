import { AUDIT_COLUMNS, defineColumns, TEXT } from "../../query-language/index.js";

/** What POST /chunked-files/query can filter and sort on (the caller's own chunked files only). */
export const chunkedFileColumns = defineColumns("chunked files", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  size: { type: "INT64", equalitySearch: true, rangeSearch: true, sortable: true },
});
