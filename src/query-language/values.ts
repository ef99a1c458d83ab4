import { isObjectId } from "../core/ids.js";
import type { ColumnType } from "./columns.js";

export type ValueCheck = { ok: true; value: unknown } | { ok: false; reason: string };

const INT32 = 2 ** 31;
const INT64 = 2 ** 63;
const INT16 = 2 ** 15;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function integerIn(value: unknown, min: number, maxExclusive: number, label: string): ValueCheck {
  if (typeof value !== "number" || !Number.isInteger(value)) return { ok: false, reason: `expects an integer (${label})` };
  if (value < min || value >= maxExclusive) return { ok: false, reason: `${value} is outside the ${label} range [${min}, ${maxExclusive - 1}]` };
  return { ok: true, value: BigInt(value).toString() };
}

function magnitude(value: unknown, smallest: number, largest: number, label: string): ValueCheck {
  if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, reason: `expects a number (${label})` };
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < smallest || abs > largest)) return { ok: false, reason: `${value} is outside the ${label} magnitude range ${smallest} to ${largest}` };
  return { ok: true, value };
}

/**
 * Checks one literal against the value format of spec 4.2 and returns it in the form the SQL
 * translator binds (strings lower-cased for case-insensitive comparison, 64-bit integers as
 * decimal strings so they survive the trip to PostgreSQL exactly).
 */
export function checkValue(type: ColumnType, value: unknown): ValueCheck {
  switch (type) {
    case "STRING":
    case "KEYWORD_SEARCH":
    case "ARRAY_STRINGS":
      return typeof value === "string" ? { ok: true, value: value.toLowerCase() } : { ok: false, reason: "expects a string" };
    case "OBJECTID":
      if (typeof value !== "string") return { ok: false, reason: "expects an id string" };
      return isObjectId(value.toLowerCase()) ? { ok: true, value: value.toLowerCase() } : { ok: false, reason: `"${value}" is not a 24-character hexadecimal id` };
    case "DATE_TIME": {
      if (typeof value !== "string" || !DATE_TIME.test(value)) return { ok: false, reason: "expects an ISO 8601 date-time string such as 2025-06-30T14:05:09Z" };
      const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
      return Number.isNaN(date.getTime()) ? { ok: false, reason: `"${value}" is not a valid date-time` } : { ok: true, value: date.toISOString() };
    }
    case "DATE": {
      if (typeof value !== "string" || !DATE.test(value)) return { ok: false, reason: "expects an ISO date string such as 2025-06-30" };
      const date = new Date(`${value}T00:00:00Z`);
      return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? { ok: false, reason: `"${value}" is not a valid date` } : { ok: true, value };
    }
    case "BOOLEAN":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, reason: "expects true or false" };
    case "INT16":
      return integerIn(value, -INT16, INT16, "INT16");
    case "INT32":
      return integerIn(value, -INT32, INT32, "INT32");
    case "INT64":
    case "ARRAY_INT64":
      return integerIn(value, -INT64, INT64, "INT64");
    case "MONEY_100":
      return integerIn(value, -INT64, INT64, "MONEY_100 (amount times 100)");
    case "FLOAT32":
      return magnitude(value, 1.2e-38, 3.4e38, "FLOAT32");
    case "FLOAT64":
      return magnitude(value, 2.2e-308, 1.7e308, "FLOAT64");
    case "DECIMAL":
      return typeof value === "number" && Number.isFinite(value) ? { ok: true, value } : { ok: false, reason: "expects a number" };
    case "PERCENTAGE_FIXED_POINT":
      if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, reason: "expects a number from 0 to 10000" };
      return value < 0 || value > 10000 ? { ok: false, reason: `${value} is outside the PERCENTAGE_FIXED_POINT range 0 to 10000` } : { ok: true, value };
    default:
      return { ok: false, reason: `columns of type ${type} cannot be compared to a literal` };
  }
}

/** PostgreSQL type a bound value of this column type is cast to. */
export function sqlTypeOf(type: ColumnType): string {
  switch (type) {
    case "DATE_TIME":
      return "timestamptz";
    case "DATE":
      return "date";
    case "BOOLEAN":
      return "boolean";
    case "INT16":
    case "INT32":
    case "INT64":
    case "MONEY_100":
    case "ARRAY_INT64":
      return "bigint";
    case "FLOAT32":
    case "FLOAT64":
      return "double precision";
    case "DECIMAL":
    case "PERCENTAGE_FIXED_POINT":
      return "numeric";
    default:
      return "text";
  }
}
