import { AUDIT_COLUMNS, defineColumns, TEXT } from "../../query-language/index.js";

/** What POST /file-results/query can filter and sort on (the caller's own file results only). */
export const fileResultColumns = defineColumns("file results", {
  ...AUDIT_COLUMNS,
  fileName: TEXT,
  size: { type: "INT64", equalitySearch: true, rangeSearch: true, sortable: true },
});
