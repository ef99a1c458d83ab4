import { isObjectId } from "../core/ids.js";
import type { ColumnType } from "./columns.js";

export type ValueCheck = { ok: true; value: unknown } | { ok: false; reason: string };

const INT16 = { min: -(2n ** 15n), max: 2n ** 15n - 1n };
const INT32 = { min: -(2n ** 31n), max: 2n ** 31n - 1n };
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
/** Date-time with a mandatory zone: a zone-less or date-only value names no instant. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isCalendarDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/**
 * An integer within [min, max], returned as a decimal string (bound as bigint, exact in SQL).
 * JSON numbers beyond ±(2^53 - 1) arrive rounded; `exact` is the literal's own digits when the
 * request body held one (core/exact-integers.ts), so INT64 and MONEY_100 are compared with the
 * value the client wrote. A rounded value without its digits is refused rather than guessed.
 */
function integerIn(value: unknown, exact: string | undefined, range: { min: bigint; max: bigint }, label: string): ValueCheck {
  const bounds = `[${range.min}, ${range.max}]`;
  if (typeof value !== "number" || !Number.isInteger(value)) return { ok: false, reason: `expects an integer (${label}, range ${bounds})` };
  let exactValue: bigint;
  if (exact !== undefined && /^-?\d+$/.test(exact) && Number(exact) === value) exactValue = BigInt(exact);
  else if (Number.isSafeInteger(value)) exactValue = BigInt(value);
  else if (BigInt(value) < range.min || BigInt(value) > range.max) return { ok: false, reason: `${value} is outside the ${label} range ${bounds}` };
  else {
    return {
      ok: false,
      reason: `${value} is not exact: integers beyond ±${Number.MAX_SAFE_INTEGER} are accepted only as plain JSON integer literals (no fraction or exponent), e.g. ${range.max}`,
    };
  }
  if (exactValue < range.min || exactValue > range.max) return { ok: false, reason: `${exactValue} is outside the ${label} range ${bounds}` };
  return { ok: true, value: exactValue.toString() };
}

function magnitude(value: unknown, smallest: number, largest: number, label: string): ValueCheck {
  if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, reason: `expects a number (${label})` };
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < smallest || abs > largest)) return { ok: false, reason: `${value} is outside the ${label} magnitude range ${smallest} to ${largest}` };
  return { ok: true, value };
}

function dateTime(value: unknown): ValueCheck {
  const example = "such as 2025-06-30T14:05:09Z or 2025-06-30T16:05:09+02:00";
  if (typeof value !== "string") return { ok: false, reason: `expects an ISO 8601 date-time string with a zone, ${example}` };
  const match = DATE_TIME.exec(value);
  if (!match) {
    const zoneless = /^\d{4}-\d{2}-\d{2}(T[\d:.]+)?$/.test(value);
    return {
      ok: false,
      reason: zoneless
        ? `"${value}" has no zone: a DATE_TIME needs Z or an offset (${example})`
        : `expects an ISO 8601 date-time string with a zone, ${example}`,
    };
  }
  const [, year, month, day, hour, minute, second = "00", offsetHours = "00", offsetMinutes = "00"] = match;
  const date = new Date(value);
  if (!isCalendarDate(`${year}-${month}-${day}`) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59 || Number.isNaN(date.getTime())) {
    return { ok: false, reason: `"${value}" is not a valid date-time` };
  }
  return { ok: true, value: date.toISOString() };
}

/**
 * Checks one literal against the value format of spec 4.2 and returns it in the form the SQL
 * translator binds (strings lower-cased for case-insensitive comparison, 64-bit integers as
 * decimal strings so they survive the trip to PostgreSQL exactly). `exact` is the literal's digits
 * when the number was too large for JavaScript to hold (see integerIn).
 */
export const NUL_REASON = "must not contain the NUL character (U+0000)";

export function checkValue(type: ColumnType, value: unknown, exact?: string): ValueCheck {
  switch (type) {
    case "STRING":
    case "KEYWORD_SEARCH":
    case "ARRAY_STRINGS":
      if (typeof value !== "string") return { ok: false, reason: "expects a string" };
      // PostgreSQL text cannot hold U+0000: no stored value has it, and the database refuses it as a parameter.
      return value.includes("\0") ? { ok: false, reason: NUL_REASON } : { ok: true, value: value.toLowerCase() };
    case "OBJECTID":
      if (typeof value !== "string") return { ok: false, reason: "expects an id string" };
      return isObjectId(value.toLowerCase()) ? { ok: true, value: value.toLowerCase() } : { ok: false, reason: `"${value}" is not a 24-character hexadecimal id` };
    case "DATE_TIME":
      return dateTime(value);
    case "DATE":
      if (typeof value !== "string" || !DATE.test(value)) return { ok: false, reason: "expects an ISO date string such as 2025-06-30" };
      return isCalendarDate(value) ? { ok: true, value } : { ok: false, reason: `"${value}" is not a valid date` };
    case "BOOLEAN":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, reason: "expects true or false" };
    case "INT16":
      return integerIn(value, exact, INT16, "INT16");
    case "INT32":
      return integerIn(value, exact, INT32, "INT32");
    case "INT64":
    case "ARRAY_INT64":
      return integerIn(value, exact, INT64, "INT64");
    case "MONEY_100":
      return integerIn(value, exact, INT64, "MONEY_100 (amount times 100)");
    case "FLOAT32":
      return magnitude(value, 1.2e-38, 3.4e38, "FLOAT32");
    case "FLOAT64":
      return magnitude(value, 2.2e-308, 1.7e308, "FLOAT64");
    case "DECIMAL":
      return typeof value === "number" && Number.isFinite(value) ? { ok: true, value } : { ok: false, reason: "expects a number" };
    case "PERCENTAGE_FIXED_POINT":
      // Fixed point: 3000 is 30.00%, so values are whole numbers (compared as integers, which the
      // integer score columns' indexes serve).
      if (typeof value !== "number" || !Number.isInteger(value)) return { ok: false, reason: "expects a whole number from 0 to 10000 (fixed point: 3000 = 30.00%)" };
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
    case "PERCENTAGE_FIXED_POINT":
      return "integer";
    case "DECIMAL":
      return "numeric";
    default:
      return "text";
  }
}
