import type pg from "pg";
import { FIELDS, fence, field, signedAmountExpression, typedExpression, type ParsePlan } from "../sql/parse-plan.js";
import { column, qualifiedTable, stagingColumn } from "../sql/identifiers.js";
import { ensureRowIndex } from "../staging/stage.js";
import { dateStyleSetting, withParseFallback } from "../sql/value-expressions.js";
import type { DataPreview, MetricState } from "../types.js";
import { inPgTransaction } from "../../db/pg-transaction.js";

/** Entries of one effective date (null: blank or unparseable dates). */
export interface DaySummary {
  date: string | null;
  entries: number;
  debitEntries: number;
  creditEntries: number;
  /** MONEY_100 totals, debits and credits both positive. */
  debits: number;
  credits: number;
  /** row_no of the day's first entry (for previews). */
  firstRow: number;
}

/** The compact result of ANALYZING_EFFECTIVE_DATE_METRICS: one row per day, whatever the file size. */
export interface EffectiveDateSummary {
  days: DaySummary[];
}

/**
 * One set-based pass over the staging table: entries, debits and credits per effective date. The
 * histograms for DAY, WEEK and MONTH and the in/out of period figures are derived from it without
 * touching the rows again (`effectiveDateMetrics`).
 */
export async function summarizeEffectiveDates(pool: pg.Pool, staging: string, plan: ParsePlan): Promise<EffectiveDateSummary> {
  const date = field(plan, FIELDS.effectiveDate);
  if (!date || date.storage !== "DATE") throw new Error("effective_date is not mapped to a date column");
  const table = qualifiedTable(staging);
  const rows = await withParseFallback(async (guarded) => {
    const amount = signedAmountExpression(plan, guarded) ?? "0::bigint";
    return inPgTransaction(pool, async (client) => {
      await client.query(dateStyleSetting(plan.dateOrder));
      const result = await client.query<{ d: string | null; n: string; dn: string; cn: string; ds: string; cs: string; first_row: string }>(
        `SELECT to_char(d, 'YYYY-MM-DD') AS d, count(*) AS n,
                count(*) FILTER (WHERE a > 0) AS dn, count(*) FILTER (WHERE a < 0) AS cn,
                coalesce(sum(a) FILTER (WHERE a > 0), 0) AS ds, coalesce(-sum(a) FILTER (WHERE a < 0), 0) AS cs,
                min(row_no) AS first_row
           FROM (SELECT row_no, ${typedExpression(date, plan, guarded)} AS d, ${amount} AS a FROM ${table}${fence(plan, guarded)}) s
          GROUP BY d ORDER BY d NULLS LAST`,
      );
      return result.rows;
    });
  }, date.guarded);
  return {
    days: rows.map((r) => ({
      date: r.d,
      entries: Number(r.n),
      debitEntries: Number(r.dn),
      creditEntries: Number(r.cn),
      debits: Number(r.ds),
      credits: Number(r.cs),
      firstRow: Number(r.first_row),
    })),
  };
}

export type PeriodType = "DAY" | "WEEK" | "MONTH";

export interface AnalysisPeriod {
  /** ISO dates, inclusive. */
  startDate: string;
  endDate: string;
}

export interface HistogramMetric {
  count: number;
  histogram: Record<string, number>;
  state: MetricState;
  dataPreviews: DataPreview[];
}

export interface AmountMetric {
  /** Entries with a debit (credit) in the period. */
  count: number;
  /** Their total in MONEY_100. */
  amount: number;
  state: MetricState;
  dataPreviews: DataPreview[];
}

/** The wire's effective date metrics read model, plus `entriesWithoutValidDate`. */
export interface EffectiveDateMetrics {
  periodType: PeriodType;
  entriesInPeriod: HistogramMetric;
  entriesOutOfPeriod: HistogramMetric;
  debitsInPeriod: AmountMetric;
  creditsInPeriod: AmountMetric;
  inPeriodCountHistogram: HistogramMetric;
  outOfPeriodCountHistogram: HistogramMetric;
  /** Blank or unparseable effective dates (neither in nor out of the period). */
  entriesWithoutValidDate: HistogramMetric;
}

/** Histogram label of a date: the day, the Monday starting its ISO week, or the month. */
export function periodLabel(date: string, period: PeriodType): string {
  if (period === "DAY") return date;
  if (period === "MONTH") return date.slice(0, 7);
  const d = new Date(`${date}T00:00:00Z`);
  const offset = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - offset);
  return d.toISOString().slice(0, 10);
}

const PREVIEWS = 10;

/** The metrics for one histogram resolution and analysis period, from the daily summary (pure). */
export function effectiveDateMetrics(summary: EffectiveDateSummary, period: PeriodType, analysisPeriod: AnalysisPeriod): EffectiveDateMetrics {
  const inHistogram: Record<string, number> = {};
  const outHistogram: Record<string, number> = {};
  let inCount = 0;
  let outCount = 0;
  let undated = 0;
  let debitCount = 0;
  let creditCount = 0;
  let debits = 0;
  let credits = 0;
  const outPreviews: DataPreview[] = [];
  const undatedPreviews: DataPreview[] = [];
  for (const day of summary.days) {
    if (day.date === null) {
      undated += day.entries;
      undatedPreviews.push({ rowIndex: day.firstRow });
      continue;
    }
    const label = periodLabel(day.date, period);
    if (day.date >= analysisPeriod.startDate && day.date <= analysisPeriod.endDate) {
      inCount += day.entries;
      inHistogram[label] = (inHistogram[label] ?? 0) + day.entries;
      debitCount += day.debitEntries;
      creditCount += day.creditEntries;
      debits += day.debits;
      credits += day.credits;
    } else {
      outCount += day.entries;
      outHistogram[label] = (outHistogram[label] ?? 0) + day.entries;
      if (outPreviews.length < PREVIEWS) outPreviews.push({ rowIndex: day.firstRow, value: day.date });
    }
  }
  const total = inCount + outCount + undated;
  const outState: MetricState = outCount === 0 ? "PASS" : outCount > total / 2 ? "FAIL" : "WARN";
  const balanced: MetricState = debits === credits ? "PASS" : "WARN";
  return {
    periodType: period,
    entriesInPeriod: { count: inCount, histogram: inHistogram, state: inCount > 0 ? "PASS" : "FAIL", dataPreviews: [] },
    entriesOutOfPeriod: { count: outCount, histogram: outHistogram, state: outState, dataPreviews: outPreviews },
    debitsInPeriod: { count: debitCount, amount: debits, state: balanced, dataPreviews: [] },
    creditsInPeriod: { count: creditCount, amount: credits, state: balanced, dataPreviews: [] },
    inPeriodCountHistogram: { count: inCount, histogram: inHistogram, state: "PASS", dataPreviews: [] },
    outOfPeriodCountHistogram: { count: outCount, histogram: outHistogram, state: outState, dataPreviews: outPreviews },
    entriesWithoutValidDate: { count: undated, histogram: {}, state: undated === 0 ? "PASS" : "WARN", dataPreviews: undatedPreviews.slice(0, PREVIEWS) },
  };
}

/** Rows of a staging or entries table by row_no, as string maps (every column, internal ones too). */
export async function loadRows(pool: pg.Pool, table: string, rowNos: number[], select = "*"): Promise<Map<number, Record<string, unknown>>> {
  if (rowNos.length === 0) return new Map();
  return inPgTransaction(pool, async (client) => {
    // Staging tables have only a BRIN index on row_no and no statistics: make the planner use it.
    await ensureRowIndex(client, table);
    await client.query("SET LOCAL enable_seqscan = off");
    const { rows } = await client.query(`SELECT ${select} FROM ${qualifiedTable(table)} WHERE row_no = ANY($1::bigint[])`, [rowNos]);
    return new Map(rows.map((r) => [Number(r.row_no), r]));
  });
}

/**
 * Staged rows by row_no as the file's own fields, in column order (`width` = the file info's
 * columns; blank fields as ""): the `row` of a data preview, shaped like the file info's previews.
 * Internal columns of the staging table (row_no, typed shadows, fields beyond the width) stay out.
 */
export async function loadStagedRecords(pool: pg.Pool, staging: string, width: number, rowNos: number[]): Promise<Map<number, string[]>> {
  const fields = Array.from({ length: width }, (_, i) => column(stagingColumn(i)));
  const rows = await loadRows(pool, staging, rowNos, ["row_no", ...fields].join(", "));
  const records = new Map<number, string[]>();
  for (const [rowNo, row] of rows) records.set(rowNo, Array.from({ length: width }, (_, i) => (row[stagingColumn(i)] ?? "") as string));
  return records;
}
