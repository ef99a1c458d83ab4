import { cell, findColumn, isAmount, isDate, namedPositions, nonBlankCount, type Degrouper, type FlatRow, type GroupedFormatDefinition } from "./common.js";

/**
 * QuickBooks "Transaction Detail by Account" (and the Desktop "General Ledger" detail, same shape).
 * Entries are grouped in sections headed by an account name on a line of its own; sub-accounts nest
 * sections; each section ends with "Total for <account>" (Online) or "Total <account>" (Desktop);
 * a TOTAL line and a footer end the report. The account appears only in the section header.
 *
 *   ,Date,Transaction Type,Num,Name,Memo/Description,Split,Amount,Balance
 *   Checking,,,,,,,,
 *   ,01/03/2023,Expense,1001,Hicks Hardware,,Job Materials,-250.00,"4,750.00"
 *   Total for Checking,,,,,,,"$4,750.00",
 */

const DATE = ["date"];
const AMOUNTS = ["amount", "debit", "credit"];

function isTotalLabel(value: string): boolean {
  return /^total\b/i.test(value.trim());
}

/** The single label of a section or total line, when the line has nothing else. */
function label(values: string[], firstNamed: number): { text: string; depth: number } | null {
  if (nonBlankCount(values) !== 1) return null;
  const at = values.findIndex((v) => v.trim() !== "");
  // Section labels sit in the unnamed leading columns (Desktop indents sub-accounts one column).
  if (at > Math.max(0, firstNamed - 1) && at !== 0) return null;
  return { text: values[at].trim(), depth: at };
}

export const QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT: GroupedFormatDefinition = {
  format: "QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT",
  detect(header, rows) {
    const date = findColumn(header, DATE);
    if (date < 0 || AMOUNTS.every((a) => findColumn(header, [a]) < 0)) return 0;
    if (findColumn(header, ["split", "balance"]) < 0) return 0;
    const firstNamed = namedPositions(header)[0] ?? 0;
    let sections = 0;
    let totals = 0;
    let details = 0;
    for (const row of rows) {
      const l = label(row, firstNamed);
      if (l && !isTotalLabel(l.text)) sections++;
      else if (isTotalLabel(cell(row, row.findIndex((v) => v.trim() !== "")))) totals++;
      else if (isDate(cell(row, date))) details++;
    }
    if (sections === 0 || details === 0) return 0;
    return totals > 0 ? 0.9 : 0.6;
  },
  create(header) {
    return new TransactionDetailDegrouper(header);
  },
};

class TransactionDetailDegrouper implements Degrouper {
  readonly header: string[];
  private readonly named: number[];
  private readonly date: number;
  private readonly amounts: number[];
  /** Open sections, outermost first: the entry's account is the innermost one. */
  private readonly sections: { text: string; depth: number }[] = [];

  constructor(raw: string[]) {
    this.named = namedPositions(raw);
    this.date = findColumn(raw, DATE);
    this.amounts = AMOUNTS.map((a) => findColumn(raw, [a])).filter((i) => i >= 0);
    const names = this.named.map((i) => raw[i].trim());
    this.header = ["Account", "Parent Account", ...names];
  }

  push(values: string[], index: number): FlatRow[] {
    const firstNamed = this.named[0] ?? 0;
    const first = values.findIndex((v) => v.trim() !== "");
    if (first < 0) return [];
    const text = values[first].trim();
    if (isTotalLabel(text) && first < firstNamed + 1) {
      this.closeSection(text);
      return [];
    }
    const l = label(values, firstNamed);
    if (l) {
      // A section at the same or a shallower depth closes the ones it replaces (Desktop has no totals for empty accounts).
      while (this.sections.length > 0 && this.sections[this.sections.length - 1].depth >= l.depth && l.depth > 0) this.sections.pop();
      this.sections.push(l);
      return [];
    }
    if (!isDate(cell(values, this.date))) return []; // beginning balances, footers
    if (!this.amounts.some((i) => isAmount(cell(values, i)))) return [];
    const account = this.sections.at(-1)?.text ?? "";
    const parent = this.sections.length > 1 ? this.sections[this.sections.length - 2].text : "";
    return [{ values: [account, parent, ...this.named.map((i) => cell(values, i))], index }];
  }

  private closeSection(text: string): void {
    const name = text.replace(/^total\s+(for\s+)?/i, "").trim();
    const at = this.sections.map((s) => s.text).lastIndexOf(name);
    if (at >= 0) this.sections.length = at;
    else this.sections.pop();
  }
}
