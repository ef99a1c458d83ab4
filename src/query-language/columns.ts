/** Column types of the tabular schema (spec 2.4). */
export const COLUMN_TYPES = [
  "STRING",
  "DATE",
  "DATE_TIME",
  "BOOLEAN",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "MONEY_100",
  "PERCENTAGE_FIXED_POINT",
  "ARRAY_STRINGS",
  "ARRAY_INT64",
  "KEYWORD_SEARCH",
  "OBJECTID",
  "BOOLEAN_FLAGS",
  "MAP_SCALARS",
  "LEGACY_ACCOUNT_TAG_EFFECTS",
  "JSONB",
  "DECIMAL",
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface SearchFlags {
  equalitySearch?: boolean;
  rangeSearch?: boolean;
  containsSearch?: boolean;
  allowCaseInsensitiveSubstringSearch?: boolean;
  caseInsensitivePrefixSearch?: boolean;
  keywordSearch?: boolean;
  sortable?: boolean;
}

/**
 * What the query language needs to know about one queryable field: its type, which searches its
 * flags allow, and the SQL column holding it. Entities and ledger data tables describe their
 * columns the same way, so one validator and one translator serve every /query endpoint.
 */
export interface ColumnDef extends SearchFlags {
  field: string;
  type: ColumnType;
  /** Physical column name; values are always bound parameters, names only ever come from here. */
  sql: string;
  /**
   * ARRAY_STRINGS only: every stored element is already lower-case (ids, permission names), so
   * `$contains` can compare the lower-cased literal exactly (`col @> ARRAY[$1]`, served by a GIN
   * index on the column). Arrays stored as given are compared through `lower_text_array(col)`,
   * whose GIN expression index serves them instead.
   */
  storedLowerCase?: boolean;
  /**
   * STRING columns holding an enumeration (see `enumOf`): its canonical values, exactly as stored.
   * `$eq`/`$ne`/`$in`/`$nin` accept them case-insensitively, bind the canonical spelling and compare
   * the column as stored (`col = $1`, served by a plain btree index); any other value is a 400.
   */
  values?: readonly string[];
  /**
   * BOOLEAN_FLAGS columns that hold no value of their own: flag name -> the physical BOOLEAN column
   * of that flag (analysis results' `cp_failed` over `cp_failed_<control point>`). `$flags` names
   * only these flags and compares those columns, which the result's partial indexes serve.
   */
  flagColumns?: Readonly<Record<string, string>>;
}

export interface ColumnSet {
  /** Name used in messages ("organization", "data table gl_journal_lines"). */
  subject: string;
  byField: ReadonlyMap<string, ColumnDef>;
}

type ColumnSpec = Omit<ColumnDef, "field" | "sql"> & { sql?: string };

export function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function defineColumns(subject: string, specs: Record<string, ColumnSpec>): ColumnSet {
  const byField = new Map<string, ColumnDef>();
  for (const [field, spec] of Object.entries(specs)) byField.set(field, { field, ...spec, sql: spec.sql ?? snakeCase(field) });
  return { subject, byField };
}

export function columnSetOf(subject: string, columns: ColumnDef[]): ColumnSet {
  return { subject, byField: new Map(columns.map((c) => [c.field, c])) };
}

/** The common fields every entity can be filtered and sorted on. */
export const AUDIT_COLUMNS: Record<string, ColumnSpec> = {
  id: { type: "OBJECTID", equalitySearch: true, rangeSearch: true, sortable: true },
  version: { type: "INT64", equalitySearch: true, rangeSearch: true, sortable: true },
  creationDate: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
  lastModifiedDate: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
};

/** Shorthand flag sets for entity columns. */
export const TEXT: ColumnSpec = {
  type: "STRING",
  equalitySearch: true,
  rangeSearch: true,
  caseInsensitivePrefixSearch: true,
  allowCaseInsensitiveSubstringSearch: true,
  sortable: true,
};
export const ID: ColumnSpec = { type: "OBJECTID", equalitySearch: true, sortable: true };
/**
 * An enumeration column: equality and sorting, values checked against `values` (its canonical,
 * stored spelling, e.g. the constant behind the module's GraphQL enum). A column whose stored
 * values are not a closed set is a plain `{ type: "STRING", equalitySearch: true, ... }` instead.
 */
export function enumOf(values: readonly string[]): ColumnSpec {
  return { type: "STRING", equalitySearch: true, sortable: true, values };
}
export const FLAG: ColumnSpec = { type: "BOOLEAN", equalitySearch: true, sortable: true };
/** Arrays of ids or permission names: canonical lower-case values, validated on every write. */
export const ID_LIST: ColumnSpec = { type: "ARRAY_STRINGS", containsSearch: true, storedLowerCase: true };
