import { blank, cell, findColumn, isAmount, isDate, namedPositions, normalizeHeader, type Degrouper, type FlatRow, type GroupedFormatDefinition } from "./common.js";

/**
 * QuickBooks "Journal" report exported to CSV/Excel (Online and Desktop). Each transaction's
 * date, type, number and name are printed on its first line only; its other lines carry account,
 * memo and amount; a line with only the debit and credit totals closes it, followed by a blank
 * line; a TOTAL line and a basis/timestamp footer end the report. Online adds an unnamed first
 * column, Desktop two (and a "Trans #").
 *
 *   ,Date,Transaction Type,Num,Name,Memo/Description,Account,Debit,Credit
 *   ,01/03/2023,Invoice,1001,Amy's Bird Sanctuary,,Accounts Receivable (A/R),$108.00,
 *   ,,,,,Weekly Gardening Service,Services,,$100.00
 *   ,,,,,,,$108.00,$108.00
 */

const DATE = ["date"];
const ACCOUNT = ["account"];
const DEBIT = ["debit"];
const CREDIT = ["credit"];
/** Printed on the first line of a transaction only; copied down to its other lines. */
const TRANSACTION_LEVEL = ["trans no", "trans", "transaction no", "type", "transaction type", "date", "num", "no", "adj", "name"];

export const QUICKBOOKS_JOURNAL: GroupedFormatDefinition = {
  format: "QUICKBOOKS_JOURNAL",
  detect(header, rows) {
    const date = findColumn(header, DATE);
    const account = findColumn(header, ACCOUNT);
    const debit = findColumn(header, DEBIT);
    const credit = findColumn(header, CREDIT);
    if (date < 0 || account < 0 || debit < 0 || credit < 0) return 0;
    if (findColumn(header, ["num", "trans no", "transaction type", "type"]) < 0) return 0;
    let firsts = 0;
    let continuations = 0;
    let totals = 0;
    for (const row of rows) {
      const hasAmount = isAmount(cell(row, debit)) || isAmount(cell(row, credit));
      if (isDate(cell(row, date)) && !blank(cell(row, account))) firsts++;
      else if (blank(cell(row, date)) && !blank(cell(row, account)) && hasAmount) continuations++;
      else if (blank(cell(row, date)) && blank(cell(row, account)) && isAmount(cell(row, debit)) && isAmount(cell(row, credit))) totals++;
    }
    if (firsts === 0 || continuations === 0) return 0;
    return totals > 0 ? 0.9 : 0.6;
  },
  create(header) {
    return new QuickBooksJournalDegrouper(header);
  },
};

class QuickBooksJournalDegrouper implements Degrouper {
  readonly header: string[];
  private readonly named: number[];
  private readonly date: number;
  private readonly account: number;
  private readonly debit: number;
  private readonly credit: number;
  private readonly transactionLevel: number[];
  /** Online exports have no transaction number: the degrouper numbers transactions itself. */
  private readonly numbered: boolean;
  private current: string[] | null = null;
  private sequence = 0;

  constructor(raw: string[]) {
    this.named = namedPositions(raw);
    this.date = findColumn(raw, DATE);
    this.account = findColumn(raw, ACCOUNT);
    this.debit = findColumn(raw, DEBIT);
    this.credit = findColumn(raw, CREDIT);
    this.transactionLevel = this.named.filter((i) => TRANSACTION_LEVEL.includes(normalizeHeader(raw[i])));
    this.numbered = findColumn(raw, ["trans no", "trans", "transaction no"]) < 0;
    this.header = [...this.named.map((i) => raw[i].trim()), ...(this.numbered ? ["Transaction Number"] : [])];
  }

  push(values: string[], index: number): FlatRow[] {
    const date = cell(values, this.date);
    const account = cell(values, this.account);
    if (!blank(date) && isDate(date) && !blank(account)) {
      this.sequence++;
      this.current = values;
      return [this.row(values, index)];
    }
    if (blank(date) && !blank(account) && this.current) {
      const filled = values.slice();
      for (const i of this.transactionLevel) if (blank(filled[i])) filled[i] = this.current[i] ?? "";
      return [this.row(filled, index)];
    }
    // Transaction totals, blank separators, the TOTAL line and the footer carry no entry.
    if (blank(account) && (isAmount(cell(values, this.debit)) || isAmount(cell(values, this.credit)))) this.current = null;
    return [];
  }

  private row(values: string[], index: number): FlatRow {
    const out = this.named.map((i) => cell(values, i));
    if (this.numbered) out.push(String(this.sequence));
    return { values: out, index };
  }
}
