import type { App } from "../../app-types.js";
import { ValidationError } from "../../core/errors.js";
import { columnSet, readDataPage, type RowsTable } from "../data-tables/data-table-rows.js";
import { populationSqlOf } from "../data-tables/data-table-filters.js";
import type { TaskType } from "./task.columns.js";

/**
 * The result table (spec 2.10 logical name) a task type's rows live in. The outstanding-items
 * tables are the spec's end-of-period outstanding payables / receivables, one row per open
 * document (src/engine/subledger/open-items.ts). TRA_ENTRY names no table of the spec at all: a
 * task is a row of a result table (spec 2.12), so it cannot be created here (400 naming `type`).
 */
const TABLE_OF_TYPE: Record<TaskType, string | null> = {
  ENTRY: "gl_journal_lines",
  TRANSACTION: "gl_journal_tx",
  AP_ENTRY: "ap_detail_entries",
  AR_ENTRY: "ar_detail_entries",
  AP_OUTSTANDING_ENTRY: "ap_detail_union_open_payables",
  AR_OUTSTANDING_ENTRY: "ar_detail_union_open_receivables",
  TRA_ENTRY: null,
};
const LOGICAL_NAMES = Object.values(TABLE_OF_TYPE).filter((n): n is string => n !== null);

export interface ResultTable extends RowsTable {
  taskType: TaskType;
}

/** The data tables of a result that tasks can be made from, by task type. */
export async function taskTablesOf(app: App, analysisResultId: string): Promise<Map<TaskType, ResultTable>> {
  const rows = await app.prisma.dataTable.findMany({ where: { analysisResultId, logicalName: { in: LOGICAL_NAMES } } });
  const out = new Map<TaskType, ResultTable>();
  for (const [type, logicalName] of Object.entries(TABLE_OF_TYPE) as Array<[TaskType, string]>) {
    const row = logicalName ? rows.find((r) => r.logicalName === logicalName) : undefined;
    if (row) out.set(type, { id: row.id, logicalName: row.logicalName, type: row.type, tableName: row.tableName, columns: row.columns, rowCount: Number(row.rowCount), taskType: type });
  }
  return out;
}

/** The table of `type`, or 400 naming `identifier` with the types this result offers. */
export function tableForType(tables: Map<TaskType, ResultTable>, type: TaskType, identifier = "type"): ResultTable {
  const table = tables.get(type);
  if (!table) {
    const logicalName = TABLE_OF_TYPE[type];
    const missing = logicalName ? `has no ${logicalName} table (of ${type} rows)` : `has no table of ${type} rows (no result table holds them in this implementation)`;
    throw new ValidationError(`The analysis result ${missing}; tasks of this result can be of type ${[...tables.keys()].join(", ") || "(none)"}`, {
      identifier,
      values: [type],
      suggestedValues: [...tables.keys()],
    });
  }
  return table;
}

/** The default type of a task of this result: its entries (ledger, payables or receivables). */
export function defaultType(tables: Map<TaskType, ResultTable>, byTransaction: boolean): TaskType {
  if (byTransaction && tables.has("TRANSACTION")) return "TRANSACTION";
  for (const type of ["ENTRY", "AP_ENTRY", "AR_ENTRY"] as const) if (tables.has(type)) return type;
  return byTransaction ? "TRANSACTION" : "ENTRY";
}

export type ResultRow = Record<string, unknown>;

/** One row by rowid, or by txid for transactions; null when there is none. */
export async function readResultRow(app: App, table: ResultTable, key: { rowId?: number | null; transactionId?: string | null }): Promise<ResultRow | null> {
  const query = key.rowId != null ? { rowid: key.rowId } : { txid: key.transactionId };
  const page = await readDataPage(app.pool, table, { query, pageSize: 1 });
  return page.content[0] ?? null;
}

/** Pages of rows matching a filter (its populations resolved beforehand), highest risk first, up to `limit` rows. */
export async function* matchingRows(app: App, table: ResultTable, query: unknown, limit: number, populations: Record<string, Record<string, unknown>> = {}): AsyncGenerator<ResultRow[]> {
  const pageSize = 2000;
  const populationSql = populationSqlOf(populations, columnSet(table));
  const sortable = table.columns.some((c) => c.field === "risk" && c.sortable);
  let left = limit;
  for (let page = 0; left > 0; page++) {
    const result = await readDataPage(app.pool, table, { query, page, pageSize, sort: sortable ? [{ field: "risk", direction: "DESC" }, { field: "rowid", direction: "ASC" }] : undefined }, populationSql);
    const rows = result.content.slice(0, left);
    if (rows.length > 0) yield rows;
    left -= rows.length;
    if (result.last) return;
  }
}

const num = (v: unknown): number | null => (typeof v === "number" ? v : typeof v === "string" && v !== "" && !Number.isNaN(Number(v)) ? Number(v) : null);
const str = (v: unknown): string | null => (v === null || v === undefined || v === "" ? null : String(v));

/**
 * What a task carries of its row (wire reference 8): amounts (MONEY_100 integers, as the data
 * endpoint gives them) with the currency, the risk score and every control point score above 0,
 * and the description fields.
 */
export function taskFieldsOfRow(type: TaskType, row: ResultRow, currencyCode: string | null) {
  const currency = str(row.currency) ?? currencyCode ?? null;
  const amounts: Record<string, { amount: number; currency: string | null }> = {};
  for (const [key, name] of [["amount", "amount"], ["debit", "debit"], ["credit", "credit"], ["monetary_value", "monetaryValue"], ["outstanding_amount", "outstandingAmount"], ["carried_forward_amount", "carriedForwardAmount"], ["invoiced_amount", "invoicedAmount"], ["settled_amount", "settledAmount"], ["closing_list_amount", "closingListAmount"]]) {
    const value = num(row[key]);
    if (value !== null) amounts[name] = { amount: value, currency };
  }
  const riskScores: Record<string, number> = {};
  const risk = num(row.risk);
  if (risk !== null) riskScores.risk = risk;
  for (const [key, value] of Object.entries(row)) {
    const score = num(value);
    if (key.startsWith("cp_score_") && score !== null && score > 0) riskScores[key.slice("cp_score_".length)] = score;
  }
  const rowId = num(row.rowid)!;
  const txid = str(row.txid);
  const invoice = str(row.invoice_id);
  const side = type.startsWith("AP_") ? "Payables" : "Receivables";
  const name =
    type === "TRANSACTION"
      ? `Transaction ${txid ?? rowId}`
      : type === "ENTRY"
        ? `Entry ${rowId}${txid ? ` of transaction ${txid}` : ""}`
        : `${side} ${type.includes("OUTSTANDING") ? "outstanding item" : "entry"} ${rowId}${invoice ? ` (invoice ${invoice})` : ""}`;
  return {
    name,
    rowId,
    transactionId: txid,
    transaction: str(row.transaction) ?? txid,
    entryType: str(row.type) ?? str(row.entry_type),
    rowDescription: str(row.memo) ?? str(row.account_description) ?? str(row.transaction),
    amounts,
    riskScores,
    debitValue: num(row.debit),
    creditValue: num(row.credit),
    vendorName: str(row.vendor_name),
    customerName: str(row.customer_name),
    invoiceRef: invoice,
  };
}
