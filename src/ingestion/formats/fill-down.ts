import type { GroupedFormat } from "../types.js";
import { blank, cell, findColumn, isAmount, isDate, namedPositions, normalizeHeader, type Degrouper, type FlatRow, type GroupedFormatDefinition } from "./common.js";

/**
 * Journal reports that print a transaction's own fields (date, number, reference...) on its first
 * line only: the lines below carry the account and the amounts with those columns blank, and a
 * totals line (amounts without an account) may close each transaction. Flattening copies the
 * transaction's fields down to every line and drops totals, blank separators, report titles and
 * footers. Several packages write journals this way; each is a FillDownLayout.
 */
export interface FillDownLayout {
  format: GroupedFormat;
  /** Column that is filled on the first line of each transaction (its date, or its number). */
  start: string[];
  /** The entry's account (filled on every entry line). */
  account: string[];
  debit: string[];
  credit: string[];
  /** Header names (any of each list) that tell this package's report from others' with the same shape. */
  signature: string[][];
  /** Columns printed once per transaction, copied down (normalized header names). */
  carried: string[];
  /** When no carried column numbers transactions, the flat rows get "Transaction Number" 1, 2, ... */
  numberedBy?: string[];
  /** Confidence when the shape is seen with (first) and without (second) totals lines. */
  confidence: [number, number];
}

export function fillDownFormat(layout: FillDownLayout): GroupedFormatDefinition {
  return {
    format: layout.format,
    detect(header, rows) {
      const start = findColumn(header, layout.start);
      const account = findColumn(header, layout.account);
      const debit = findColumn(header, layout.debit);
      const credit = findColumn(header, layout.credit);
      if (start < 0 || account < 0 || debit < 0 || credit < 0) return 0;
      if (layout.signature.some((names) => findColumn(header, names) < 0)) return 0;
      let firsts = 0;
      let continuations = 0;
      let totals = 0;
      for (const row of rows) {
        const hasAmount = isAmount(cell(row, debit)) || isAmount(cell(row, credit));
        if (!blank(cell(row, start)) && !blank(cell(row, account)) && hasAmount) firsts++;
        else if (blank(cell(row, start)) && !blank(cell(row, account)) && hasAmount) continuations++;
        else if (blank(cell(row, account)) && hasAmount) totals++;
      }
      if (firsts === 0 || continuations === 0) return 0;
      return totals > 0 ? layout.confidence[0] : layout.confidence[1];
    },
    create(header) {
      return new FillDownDegrouper(header, layout);
    },
  };
}

class FillDownDegrouper implements Degrouper {
  readonly header: string[];
  private readonly named: number[];
  private readonly start: number;
  private readonly account: number;
  private readonly debit: number;
  private readonly credit: number;
  private readonly date: number;
  private readonly carried: number[];
  private readonly numbered: boolean;
  private current: string[] | null = null;
  private sequence = 0;

  constructor(raw: string[], layout: FillDownLayout) {
    this.named = namedPositions(raw);
    this.start = findColumn(raw, layout.start);
    this.account = findColumn(raw, layout.account);
    this.debit = findColumn(raw, layout.debit);
    this.credit = findColumn(raw, layout.credit);
    this.date = findColumn(raw, ["date", "transaction date", "trx date", "posting date"]);
    this.carried = this.named.filter((i) => layout.carried.includes(normalizeHeader(raw[i])));
    this.numbered = layout.numberedBy !== undefined && findColumn(raw, layout.numberedBy) < 0;
    this.header = [...this.named.map((i) => raw[i].trim()), ...(this.numbered ? ["Transaction Number"] : [])];
  }

  push(values: string[], index: number): FlatRow[] {
    const start = cell(values, this.start);
    const account = cell(values, this.account);
    const hasAmount = isAmount(cell(values, this.debit)) || isAmount(cell(values, this.credit));
    // A new transaction: its first line (a date where the layout starts with one).
    if (!blank(start) && !blank(account) && hasAmount && (this.date !== this.start || isDate(start))) {
      this.sequence++;
      this.current = values;
      return [this.row(values, index)];
    }
    if (blank(start) && !blank(account) && hasAmount && this.current) {
      const filled = values.slice();
      for (const i of this.carried) if (blank(filled[i])) filled[i] = this.current[i] ?? "";
      return [this.row(filled, index)];
    }
    // Totals, separators, titles and footers carry no entry; a totals line closes the transaction.
    if (blank(account) && hasAmount) this.current = null;
    return [];
  }

  private row(values: string[], index: number): FlatRow {
    const out = this.named.map((i) => cell(values, i));
    if (this.numbered) out.push(String(this.sequence));
    return { values: out, index };
  }
}

/**
 * QuickBooks Online "Journal" in the report view introduced in 2024 (exported to CSV or Excel):
 * no unnamed leading column, "Transaction date" and "Full name"/"Account full name" headers, an
 * account number column, the transaction's date, type, number and name on its first line only,
 * "Total for ..." lines closing each transaction, a TOTAL line and the basis/timestamp footer.
 *
 *   Transaction date,Transaction type,Num,Name,Memo/Description,Account #,Full name,Debit,Credit
 *   01/03/2024,Invoice,1001,Amy's Bird Sanctuary,,1200,Accounts Receivable (A/R),$108.00,
 *   ,,,,Weekly Gardening Service,4000,Services,,$100.00
 *   Total for Invoice 1001,,,,,,,$108.00,$108.00
 */
export const QUICKBOOKS_JOURNAL_2024 = fillDownFormat({
  format: "QUICKBOOKS_JOURNAL_2024",
  start: ["transaction date"],
  account: ["full name", "account full name", "account name", "account"],
  debit: ["debit"],
  credit: ["credit"],
  signature: [["transaction date"], ["transaction type", "num"]],
  carried: ["transaction date", "transaction type", "num", "name", "adj"],
  numberedBy: ["trans no", "transaction no"],
  confidence: [0.92, 0.65],
});

/**
 * Sage 50 (US) "General Journal" report (Reports > General Ledger > General Journal), exported
 * to CSV or Excel: title lines, the entry's date and reference on its first line only, one line
 * per account, and a Total line at the end. Dates M/d/yy.
 *
 *   Date,Account ID,Reference,Trans Description,Debit Amt,Credit Amt
 *   3/1/24,10200,GENJ001,Owner contribution,"5,000.00",
 *   ,39003,,Owner contribution,,"5,000.00"
 *   ,,,Total,"5,000.00","5,000.00"
 */
export const SAGE50_TRANSACTIONS = fillDownFormat({
  format: "SAGE50_TRANSACTIONS",
  start: ["date"],
  account: ["account id", "gl account id", "account no"],
  debit: ["debit amt", "debit amount", "debit"],
  credit: ["credit amt", "credit amount", "credit"],
  signature: [["reference", "ref"], ["debit amt", "debit amount"]],
  carried: ["date", "reference", "ref"],
  confidence: [0.9, 0.7],
});

/**
 * Microsoft Dynamics GP "General Posting Journal" / journal entry listing exported to CSV or
 * Excel: report header lines (System, User Date, company, page), the journal entry's number, date,
 * reference and source document on its first distribution line only, a "Total Distributions"
 * line per entry.
 *
 *   Journal Entry,Transaction Date,Reference,Source Document,Account,Account Description,Debit,Credit
 *   1001,3/5/2024,Monthly rent,GJ,000-6170-00,Rent Expense,"2,500.00",
 *   ,,,,000-1100-00,Cash - Operating Account,,"2,500.00"
 *   ,,,,,Total Distributions,"2,500.00","2,500.00"
 */
export const MS_DYNAMICS_JOURNAL = fillDownFormat({
  format: "MS_DYNAMICS_JOURNAL",
  start: ["journal entry", "jrnl entry", "journal entry no"],
  account: ["account", "account number", "account no"],
  debit: ["debit", "debit amount"],
  credit: ["credit", "credit amount"],
  signature: [["journal entry", "jrnl entry", "journal entry no"]],
  carried: ["journal entry", "jrnl entry", "journal entry no", "transaction date", "trx date", "posting date", "reference", "source document", "batch id", "audit trail code"],
  confidence: [0.9, 0.7],
});
