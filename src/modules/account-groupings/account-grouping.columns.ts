import { AUDIT_COLUMNS, defineColumns, ENUM, FLAG, ID, TEXT } from "../../query-language/index.js";

const ARRAY: { type: "ARRAY_STRINGS"; containsSearch: true } = { type: "ARRAY_STRINGS", containsSearch: true };

export const accountGroupingColumns = defineColumns("account grouping", {
  ...AUDIT_COLUMNS,
  mac: FLAG,
  system: FLAG,
  archived: FLAG,
  publishStatus: ENUM,
  delimiter: ENUM,
  publishedDate: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
});

/** Columns shared by account groups and engagement account groups. */
export const GROUP_COLUMNS = {
  ...AUDIT_COLUMNS,
  code: TEXT,
  parentCode: TEXT,
  macCode: TEXT,
  lowestLevel: FLAG,
  orderIndex: { type: "INT32", equalitySearch: true, rangeSearch: true, sortable: true },
  accountTags: ARRAY,
  hierarchy: ARRAY,
} as const;

export const accountGroupColumns = defineColumns("account group", {
  ...GROUP_COLUMNS,
  accountGroupingId: ID,
});
