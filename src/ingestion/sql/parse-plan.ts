import { summarizeColumns } from "../mapping/columns.js";
import type { AppliedMapping } from "../mapping/model.js";
import { columnTextExpression, paddedPositions } from "../mapping/virtual-columns.js";
import type { DateOrder } from "../profile/date-shape.js";
import { NUMBER_FORMAT_DOT, type NumberFormat } from "../profile/number-shape.js";
import type { ColumnData, ColumnDefinition, TabularFileInfo } from "../types.js";
import { column } from "./identifiers.js";
import { dateExpression, floatExpression, moneyExpression, statementDateOrder, type NumberStyle } from "./value-expressions.js";

/** Platform field names the engine gives meaning to (general ledger journals). */
export const FIELDS = {
  txid: "txid",
  effectiveDate: "effective_date",
  account: "account",
  accountDescription: "account_description",
  debit: "debit",
  credit: "credit",
  amount: "amount",
  fund: "fund_id",
} as const;

export type Storage = "TEXT" | "MONEY_100" | "DATE" | "FLOAT64";

export interface ResolvedField {
  platformField: string;
  storage: Storage;
  position: number;
  /** SQL text expression over the staging table. */
  text: string;
  format: string | null;
  style: NumberStyle;
  /** True when the typed expression must yield NULL for unparseable values (a plain cast would fail on them). */
  guarded: boolean;
  /** True when the profile saw values that do not parse (or cannot tell: virtual columns): parse_errors is computed. */
  expectErrors: boolean;
  /** Typed value staged alongside the text for this format (StagedColumn.shadow), when there is one. */
  shadow?: string;
  /** For a DATE shadow: the staged integer column itself (days since DAY_ZERO; `shadow` is DAY_ZERO + it). */
  shadowDays?: string;
}

/** Day 0 of the staged integer date shadows. */
export const DAY_ZERO = "DATE '2000-01-01'";

export interface AdditionalColumn {
  name: string;
  /** Column of the entries table. */
  sqlName: string;
  position: number;
  text: string;
}

/** Everything needed to turn staged text into typed values with one SELECT. */
export interface ParsePlan {
  fields: ResolvedField[];
  additional: AdditionalColumn[];
  dateOrder: DateOrder;
  physicalCount: number;
  virtualColumns: AppliedMapping["virtualColumns"];
  /** File columns whose staged text must be trimmed. */
  padded: number[];
}

/**
 * The catalogue's column definition types (wire enum TEXT, NUMBER, DATE, UNKNOWN, FLOAT64) have no
 * MONEY: monetary amounts are FLOAT64 and are stored as MONEY_100 integers; NUMBER is any other
 * number (a line number, a quantity) and is stored as a double.
 */
function storageOf(definition: ColumnDefinition | undefined): Storage {
  switch (definition?.type) {
    case "DATE":
      return "DATE";
    case "FLOAT64":
      return "MONEY_100";
    case "NUMBER":
      return "FLOAT64";
    default:
      return "TEXT";
  }
}

/** Lower-case identifier for an additional-data column ("Cost Center" -> x_cost_center). */
export function additionalColumnName(name: string, taken: Set<string>): string {
  const base = `x_${name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 50) || "column"}`;
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  taken.add(candidate);
  return candidate;
}

/** Typed shadows of staged columns (StageResult.columns), by position. */
export interface ShadowColumn {
  position: number;
  shadow?: { sqlName: string; type: "MONEY_100" | "DATE"; format: string };
}

export function buildParsePlan(
  fileInfo: TabularFileInfo,
  applied: AppliedMapping,
  definitions: ColumnDefinition[],
  virtualColumnData: ColumnData[] = [],
  stagedColumns: ShadowColumn[] = [],
): ParsePlan {
  const physicalCount = fileInfo.columnData.length;
  const summaries = new Map(summarizeColumns(fileInfo, virtualColumnData).map((s) => [s.position, s]));
  const byField = new Map(definitions.map((d) => [d.platformFieldName, d]));
  const fields: ResolvedField[] = [];
  const additional: AdditionalColumn[] = [];
  const taken = new Set<string>();
  const padded = paddedPositions(fileInfo);
  for (const mapping of applied.columnMappings) {
    const text = columnTextExpression(mapping.position, physicalCount, applied.virtualColumns, padded);
    if (!mapping.platformField) {
      if (mapping.additionalColumnName) {
        additional.push({ name: mapping.additionalColumnName, sqlName: additionalColumnName(mapping.additionalColumnName, taken), position: mapping.position, text });
      }
      continue;
    }
    const definition = byField.get(mapping.platformField);
    const storage = storageOf(definition);
    const summary = summaries.get(mapping.position);
    const resolution = applied.ambiguousColumnResolutions.find((r) => r.position === mapping.position);
    let format = resolution?.selectedFormat ?? summary?.detectedFormat ?? null;
    if (storage === "DATE" && (!format || !summary || !(format in summary.validCounts))) format = format ?? firstKey(summary?.validCounts) ?? "yyyy-MM-dd";
    if ((storage === "MONEY_100" || storage === "FLOAT64") && (!format || !/#/.test(format))) format = NUMBER_FORMAT_DOT;
    const virtual = mapping.position >= physicalCount;
    const unparseable = summary && format ? Math.max(0, summary.nonBlank - (summary.validCounts[format] ?? 0)) : 1;
    const staged = stagedColumns.find((c) => c.position === mapping.position)?.shadow;
    const usable = staged && !virtual && staged.format === format && staged.type === storage;
    const shadowDays = usable && staged.type === "DATE" ? column(staged.sqlName) : undefined;
    const shadow = usable ? (shadowDays ? `(${DAY_ZERO} + ${shadowDays})` : column(staged.sqlName)) : undefined;
    fields.push({
      platformField: mapping.platformField,
      storage,
      position: mapping.position,
      text,
      format: storage === "TEXT" ? null : format,
      style: summary?.numberStyle ?? {},
      guarded: storage !== "TEXT" && !shadow && (virtual || unparseable > 0),
      expectErrors: storage !== "TEXT" && (virtual || unparseable > 0),
      ...(shadow ? { shadow } : {}),
      ...(shadowDays ? { shadowDays } : {}),
    });
  }
  const parsedDates = fields.filter((f) => f.storage === "DATE" && !f.shadow);
  const effective = parsedDates.find((f) => f.platformField === FIELDS.effectiveDate);
  const dateOrder = statementDateOrder([effective?.format, ...parsedDates.map((f) => f.format)]);
  return { fields, additional, dateOrder, physicalCount, virtualColumns: applied.virtualColumns, padded: [...padded] };
}

function firstKey(record: Record<string, number> | undefined): string | undefined {
  if (!record) return undefined;
  return Object.entries(record).sort((a, b) => b[1] - a[1])[0]?.[0];
}

export function field(plan: ParsePlan, name: string): ResolvedField | undefined {
  return plan.fields.find((f) => f.platformField === name);
}

/** Typed SQL expression of a field; `forceGuard` makes every cast NULL-safe (the retry after a refused value). */
export function typedExpression(f: ResolvedField, plan: ParsePlan, forceGuard: boolean): string {
  if (f.shadow) return f.shadow;
  const guarded = forceGuard || f.guarded;
  switch (f.storage) {
    case "DATE":
      return dateExpression(f.text, f.format!, plan.dateOrder, guarded);
    case "MONEY_100":
      return moneyExpression(f.text, f.format as NumberFormat, f.style, guarded);
    case "FLOAT64":
      return floatExpression(f.text, f.format as NumberFormat, f.style, guarded);
    default:
      return f.text;
  }
}

/**
 * The signed amount (debit positive, credit negative) of a row in MONEY_100: the mapped amount, or
 * debit minus credit. Null when no amount field is mapped.
 */
export function signedAmountExpression(plan: ParsePlan, forceGuard: boolean): string | null {
  const amount = field(plan, FIELDS.amount);
  if (amount && amount.storage === "MONEY_100") return typedExpression(amount, plan, forceGuard);
  const sides = amountSides(plan, forceGuard);
  if (!sides) return null;
  const side = (typed: string | null) => (typed === null ? "0" : `coalesce(${typed}, 0)`);
  return `(${side(sides.debit)} - ${side(sides.credit)})`;
}

/**
 * The typed debit and credit (null: not mapped) when the signed amount is debit minus credit, a
 * blank or unmapped side counting 0; null when it is the mapped amount field or nothing is mapped.
 */
export function amountSides(plan: ParsePlan, forceGuard: boolean): { debit: string | null; credit: string | null } | null {
  const amount = field(plan, FIELDS.amount);
  if (amount && amount.storage === "MONEY_100") return null;
  const debit = field(plan, FIELDS.debit);
  const credit = field(plan, FIELDS.credit);
  if (!debit && !credit) return null;
  return { debit: debit ? typedExpression(debit, plan, forceGuard) : null, credit: credit ? typedExpression(credit, plan, forceGuard) : null };
}

export function sqlColumn(name: string): string {
  return column(name);
}

/**
 * Fields whose typed expression the passes over the staging table use more than once per row: the
 * signed amount (debit, credit and amount of the parse; several aggregates) and the dates (group
 * keys and their bounds). Every other field appears once, parsed or not.
 */
const REUSED_FIELDS = new Set<string>([FIELDS.debit, FIELDS.credit, FIELDS.amount, FIELDS.effectiveDate, "entry_date"]);

/**
 * `OFFSET 0` keeps a subquery from being flattened, so that an expensive typed expression used
 * several times above it (the signed amount in debit, credit and amount) is computed once per row.
 * When the reused fields read staged shadows their expressions are trivial: the subquery is left to
 * be flattened (faster, and open to parallel plans), whatever the other fields cost (a number
 * column parsed from text is still read once).
 */
export function fence(plan: ParsePlan, guarded: boolean): string {
  const expensive = guarded || plan.fields.some((f) => REUSED_FIELDS.has(f.platformField) && f.storage !== "TEXT" && !f.shadow);
  return expensive ? " OFFSET 0" : "";
}

