import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID, TEXT } from "../../query-language/index.js";

/** Account grouping `publishStatus` (wire reference 7), as stored. */
export const PUBLISH_STATUSES = ["DRAFT", "UNPUBLISHED_CHANGES", "PUBLISHED"] as const;
/** The grouping file layouts an import reads. */
export const IMPORT_TYPES = ["PLATFORM_TEMPLATE", "CCH_GROUP_TRIAL_BALANCE"] as const;

const ARRAY: { type: "ARRAY_STRINGS"; containsSearch: true } = { type: "ARRAY_STRINGS", containsSearch: true };

export const accountGroupingColumns = defineColumns("account grouping", {
  ...AUDIT_COLUMNS,
  mac: FLAG,
  system: FLAG,
  archived: FLAG,
  publishStatus: enumOf(PUBLISH_STATUSES),
  /** Whatever the grouping file's settings name (not a closed set): plain text equality. */
  delimiter: { type: "STRING", equalitySearch: true, sortable: true },
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
