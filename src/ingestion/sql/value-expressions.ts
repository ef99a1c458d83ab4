import { dateOrderOf, type DateOrder } from "../profile/date-shape.js";
import { NUMBER_FORMAT_COMMA, type NumberFormat } from "../profile/number-shape.js";
import { literal } from "./identifiers.js";

/**
 * SQL expressions turning staged text into typed values, per selected format. They run inside one
 * statement per step with `SET LOCAL DateStyle` chosen by `statementDateOrder`, because PostgreSQL's
 * own date input under the right DateStyle is several times faster than to_date() or string
 * surgery; columns whose order differs from the statement's are rebuilt as ISO text instead.
 *
 * "Guarded" expressions yield NULL for unparseable values (pg_input_is_valid, PostgreSQL 16+);
 * unguarded ones are used when the profile saw no unparseable value, and a step that meets one
 * anyway retries guarded (see `withParseFallback`).
 */

export interface NumberStyle {
  parentheses?: boolean;
  trailingMinus?: boolean;
  currency?: boolean;
  letters?: boolean;
  /** Every number in the column was plain (`-?digits(.digits)?`): no clean-up before the cast. */
  plain?: boolean;
}

export function dateStyleFor(order: DateOrder): string {
  return `ISO, ${order}`;
}

/** The statement setting the DateStyle of a transaction's reads (`dateStyleFor`). */
export function dateStyleSetting(order: DateOrder): string {
  return `SET LOCAL DateStyle = '${dateStyleFor(order)}'`;
}

/** The DateStyle of a statement: the order of the first date format given (the effective date's). */
export function statementDateOrder(formats: (string | null | undefined)[]): DateOrder {
  for (const format of formats) if (format) return castOrderFor(format) ?? dateOrderOf(format);
  return "MDY";
}

/** The DateStyle order under which `x::date` reads this format right, or null when none does. */
function castOrderFor(format: string): DateOrder | null {
  if (format.startsWith("yyyyMMdd")) return null; // any order reads it
  if (format.includes("MMM")) return format.includes("yyyy") ? null : dateOrderOf(format) === "YMD" ? null : "DMY";
  return dateOrderOf(format);
}

function castable(format: string, statementOrder: DateOrder): boolean {
  if (format.startsWith("yyyyMMdd")) return true;
  if (format.includes("MMM")) return format.includes("yyyy") || statementOrder !== "YMD";
  return dateOrderOf(format) === statementOrder;
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function expandYear(y: string): string {
  return `CASE WHEN length(${y}) = 2 THEN CASE WHEN ${y} < '70' THEN '20' ELSE '19' END || ${y} ELSE ${y} END`;
}

/** ISO date text rebuilt from the parts of a value (for orders the statement's DateStyle cannot read). */
function isoText(x: string, format: string): string {
  const separator = format.match(/[^A-Za-z']/)?.[0] ?? "/";
  const sep = literal(separator);
  const core = `split_part(${x}, ' ', 1)`;
  const source = separator === " " ? x : core;
  const part = (n: number) => `split_part(${source}, ${sep}, ${n})`;
  const order = dateOrderOf(format);
  let y: string;
  let m: string;
  let d: string;
  if (order === "YMD") [y, m, d] = [part(1), part(2), part(3)];
  else if (order === "DMY") [d, m, y] = [part(1), part(2), part(3)];
  else [m, d, y] = [part(1), part(2), part(3)];
  if (format.includes("MMM")) {
    m = `array_position(ARRAY[${MONTH_NAMES.map(literal).join(", ")}], lower(left(${m}, 3)))::text`;
  }
  return `(${expandYear(y)} || '-' || ${m} || '-' || ${d})`;
}

/** A date from text `x` read with `format` (a Java-style pattern). */
export function dateExpression(x: string, format: string, statementOrder: DateOrder, guarded: boolean): string {
  if (castable(format, statementOrder)) {
    return guarded ? `CASE WHEN pg_input_is_valid(${x}, 'date') THEN (${x})::date END` : `(${x})::date`;
  }
  const iso = isoText(x, format);
  return `CASE WHEN pg_input_is_valid(${iso}, 'date') THEN (${iso})::date END`;
}

/** Text of `x` reduced to what numeric input accepts: signs normalised, symbols and grouping gone. */
function numericText(x: string, format: NumberFormat, style: NumberStyle): string {
  const comma = format === NUMBER_FORMAT_COMMA;
  // Read as written (a translate() per value cost a tenth of the parse on a million rows).
  if (style.plain && !comma) return x;
  // Grouping characters of the format, currency symbols, spaces (incl. no-break), apostrophes, parentheses.
  const drop = `$€£¥ \u00a0\u202f'’()${comma ? "." : ","}`;
  let text = `translate(${x}, ${literal(drop)}, '')`;
  if (style.letters) text = `regexp_replace(${text}, '[A-Za-z]', '', 'g')`;
  if (comma) text = `replace(${text}, ',', '.')`;
  if (style.trailingMinus) text = `CASE WHEN ${text} LIKE '%-' THEN '-' || rtrim(${text}, '-') ELSE ${text} END`;
  return text;
}

function negation(x: string, style: NumberStyle): string | null {
  const terms: string[] = [];
  if (style.parentheses) terms.push(`${x} LIKE '(%'`);
  if (style.letters) terms.push(`upper(${x}) LIKE '%CR'`);
  return terms.length > 0 ? terms.join(" OR ") : null;
}

/** An amount in MONEY_100 (bigint cents) from text `x`. */
export function moneyExpression(x: string, format: NumberFormat, style: NumberStyle, guarded: boolean): string {
  const text = numericText(x, format, style);
  const cents = `round((${text})::numeric * 100)::bigint`;
  const negate = negation(x, style);
  const signed = negate ? `CASE WHEN ${negate} THEN -${cents} ELSE ${cents} END` : cents;
  if (!guarded) return signed;
  return `CASE WHEN length(${text}) < 18 AND pg_input_is_valid(${text}, 'numeric') THEN ${signed} END`;
}

/** A FLOAT64 from text `x`. */
export function floatExpression(x: string, format: NumberFormat, style: NumberStyle, guarded: boolean): string {
  const text = numericText(x, format, style);
  const value = `(${text})::double precision`;
  const negate = negation(x, style);
  const signed = negate ? `CASE WHEN ${negate} THEN -${value} ELSE ${value} END` : value;
  return guarded ? `CASE WHEN pg_input_is_valid(${text}, 'float8') THEN ${signed} END` : signed;
}

/** SQLSTATEs of a failed cast: the step is retried with guarded expressions. */
export const PARSE_ERROR_CODES = new Set(["22007", "22008", "22P02", "22003", "22009"]);

/**
 * Runs `attempt(false)` (unguarded, fast) and, when PostgreSQL refuses a value, `attempt(true)`.
 * The attempt must be a statement or transaction that leaves nothing behind when it fails.
 */
export async function withParseFallback<T>(attempt: (guarded: boolean) => Promise<T>, guardedFromStart = false): Promise<T> {
  if (guardedFromStart) return attempt(true);
  try {
    return await attempt(false);
  } catch (error) {
    if (PARSE_ERROR_CODES.has((error as { code?: string }).code ?? "")) return attempt(true);
    throw error;
  }
}

/**
 * Settings of the engine's aggregate passes over a staging table: room to hash per-transaction
 * groups in memory, and no parallel workers. The engine already runs its passes side by side on
 * their own connections (dates and accounts beside the transaction id rating, the parse beside
 * both when the workflow passes through); workers on top of that only add gather and sort work
 * (measured on two cores: 1.6 -> 1.25 CPU seconds for the analysis of a million rows, no slower).
 */
export const SERIAL_PASS_SETTINGS = "SET LOCAL work_mem = '128MB'; SET LOCAL max_parallel_workers_per_gather = 0";

/** A serial pass's transaction prelude (sent with its BEGIN): the dates' order and SERIAL_PASS_SETTINGS. */
export function serialPassPrelude(order: DateOrder): string {
  return `${dateStyleSetting(order)}; ${SERIAL_PASS_SETTINGS}`;
}
