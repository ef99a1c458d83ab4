import type { ColumnType } from "../../query-language/columns.js";

/** A column of a Tabular Schema (spec 2.4) as stored and shown. */
export interface TabularColumn {
  name: string;
  displayName?: string | null;
  description?: string | null;
  columnType: ColumnType;
  nullable: boolean;
  precision?: number | null;
  scale?: number | null;
}

export interface TabularSchema {
  displayName?: string | null;
  description?: string | null;
  columns: TabularColumn[];
}

/**
 * A Databricks SQL type (`data_type` / `full_data_type` of information_schema.columns, or a result
 * manifest's `type_name`) as the spec 2.4 column type. Types without an equivalent (STRUCT,
 * VARIANT, INTERVAL, BINARY) are carried as JSONB text.
 */
export function columnTypeOf(dataType: string, fullType?: string | null): ColumnType {
  const type = dataType.trim().toUpperCase();
  const full = (fullType ?? dataType).trim().toUpperCase();
  if (type.startsWith("ARRAY")) {
    const element = /ARRAY\s*<\s*([A-Z_]+)/.exec(full)?.[1];
    if (element === "STRING" || element === "VARCHAR" || element === "CHAR") return "ARRAY_STRINGS";
    if (element === "BIGINT" || element === "LONG" || element === "INT" || element === "INTEGER" || element === "SMALLINT" || element === "TINYINT") return "ARRAY_INT64";
    return "JSONB";
  }
  if (type.startsWith("MAP")) return "MAP_SCALARS";
  if (type.startsWith("DECIMAL") || type.startsWith("NUMERIC") || type.startsWith("DEC")) return "DECIMAL";
  if (type.startsWith("VARCHAR") || type.startsWith("CHAR")) return "STRING";
  switch (type) {
    case "STRING":
      return "STRING";
    case "DATE":
      return "DATE";
    case "TIMESTAMP":
    case "TIMESTAMP_NTZ":
    case "TIMESTAMP_LTZ":
      return "DATE_TIME";
    case "BOOLEAN":
      return "BOOLEAN";
    case "TINYINT":
    case "BYTE":
    case "SMALLINT":
    case "SHORT":
      return "INT16";
    case "INT":
    case "INTEGER":
      return "INT32";
    case "BIGINT":
    case "LONG":
      return "INT64";
    case "FLOAT":
    case "REAL":
      return "FLOAT32";
    case "DOUBLE":
      return "FLOAT64";
    default:
      return "JSONB";
  }
}

/** `decimal(18,2)` -> {precision 18, scale 2}. */
export function decimalShape(fullType: string | null | undefined): { precision: number | null; scale: number | null } {
  const match = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(fullType ?? "");
  return match ? { precision: Number(match[1]), scale: match[2] === undefined ? 0 : Number(match[2]) } : { precision: null, scale: null };
}

/** The PostgreSQL column type holding values of a column type. */
export function sqlTypeOf(column: Pick<TabularColumn, "columnType" | "precision" | "scale">): string {
  switch (column.columnType) {
    case "STRING":
    case "KEYWORD_SEARCH":
    case "OBJECTID":
      return "text";
    case "DATE":
      return "date";
    case "DATE_TIME":
      return "timestamptz";
    case "BOOLEAN":
      return "boolean";
    case "INT16":
      return "smallint";
    case "INT32":
      return "integer";
    case "INT64":
    case "MONEY_100":
      return "bigint";
    case "FLOAT32":
      return "real";
    case "FLOAT64":
      return "double precision";
    case "PERCENTAGE_FIXED_POINT":
      return "integer";
    case "DECIMAL":
      return column.precision ? `numeric(${column.precision},${column.scale ?? 0})` : "numeric";
    default:
      return "jsonb";
  }
}
