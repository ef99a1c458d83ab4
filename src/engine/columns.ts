/**
 * A column of a published result table, in the shape of a data table definition's column
 * (modules/data-tables: `DataTableColumn`): its wire type and search flags, its physical column, and
 * how the data-tables index job should serve it.
 */
export interface ResultColumn {
  field: string;
  type:
    | "STRING"
    | "DATE"
    | "BOOLEAN"
    | "INT32"
    | "INT64"
    | "FLOAT64"
    | "MONEY_100"
    | "PERCENTAGE_FIXED_POINT"
    | "ARRAY_STRINGS"
    | "BOOLEAN_FLAGS";
  sql: string;
  originalName: string | null;
  platformField: string | null;
  nullable: boolean;
  equalitySearch: boolean;
  rangeSearch: boolean;
  containsSearch: boolean;
  allowCaseInsensitiveSubstringSearch: boolean;
  caseInsensitivePrefixSearch: boolean;
  keywordSearch: boolean;
  filterOnly: boolean;
  sortable: boolean;
  typeaheadDataTableId: string | null;
  indexed: boolean;
  orderIndexed?: boolean;
  /** BOOLEAN: a partial index on (row_no) WHERE the flag is set (flags set on few rows). */
  partialIndex?: boolean;
  /** STRING enumerations: the values (lower-case) on many rows; every other value is served by one partial index (see markCommonValues). */
  commonValues?: string[];
  /** BOOLEAN_FLAGS: flag name -> physical boolean column (the column itself holds nothing). */
  flagColumns?: Record<string, string>;
  /** ARRAY_STRINGS: values are stored lower-case (compared without lower_text_array). */
  storedLowerCase?: boolean;
}

const NONE = {
  originalName: null,
  platformField: null,
  nullable: true,
  equalitySearch: false,
  rangeSearch: false,
  containsSearch: false,
  allowCaseInsensitiveSubstringSearch: false,
  caseInsensitivePrefixSearch: false,
  keywordSearch: false,
  filterOnly: false,
  sortable: false,
  typeaheadDataTableId: null,
  indexed: false,
} as const;

type Options = Partial<Omit<ResultColumn, "field" | "type">>;

const make = (field: string, type: ResultColumn["type"], flags: Options, options: Options): ResultColumn => ({ ...NONE, sql: field, ...flags, ...options, field, type });

/** Roles of result columns and the flags each gets (docs/control-points.md, "Result tables"). */
export const col = {
  rowid: (options: Options = {}) => make("rowid", "INT64", { sql: "row_no", nullable: false, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true }, options),
  /** Codes and keys: equality, prefix, substring; indexed. */
  key: (field: string, options: Options = {}) =>
    make(field, "STRING", { equalitySearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true, sortable: true, indexed: true }, options),
  /** Free text: substring and keyword search, not indexed. */
  text: (field: string, options: Options = {}) => make(field, "STRING", { allowCaseInsensitiveSubstringSearch: true, keywordSearch: true, sortable: true }, options),
  /** An enumeration (risk levels, flow types): equality, indexed. */
  level: (field: string, options: Options = {}) => make(field, "STRING", { equalitySearch: true, sortable: true, indexed: true }, options),
  date: (field: string, options: Options = {}) => make(field, "DATE", { equalitySearch: true, rangeSearch: true, sortable: true, indexed: true }, options),
  money: (field: string, options: Options = {}) => make(field, "MONEY_100", { equalitySearch: true, rangeSearch: true, sortable: true, indexed: true }, options),
  count: (field: string, options: Options = {}) => make(field, "INT32", { equalitySearch: true, rangeSearch: true, sortable: true }, options),
  number: (field: string, options: Options = {}) => make(field, "FLOAT64", { equalitySearch: true, rangeSearch: true, sortable: true }, options),
  score: (field: string, options: Options = {}) => make(field, "PERCENTAGE_FIXED_POINT", { equalitySearch: true, rangeSearch: true, sortable: true }, options),
  flag: (field: string, options: Options = {}) => make(field, "BOOLEAN", { equalitySearch: true, sortable: true }, options),
  list: (field: string, options: Options = {}) => make(field, "ARRAY_STRINGS", { containsSearch: true }, options),
  flags: (field: string, flagColumns: Record<string, string>) => make(field, "BOOLEAN_FLAGS", { filterOnly: true }, { flagColumns, sql: field }),
};
