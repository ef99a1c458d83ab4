import { blank, cell, findColumn, isAmount, isDate, namedPositions, nonBlankCount, type Degrouper, type FlatRow, type GroupedFormatDefinition } from "./common.js";

/**
 * Reports grouped in sections: a line of its own names the section (a nominal account, an account
 * group), the lines below belong to it, and totals close it. Flattening puts the section's code
 * and name on every line as two leading columns.
 */

/** "1200 Bank Current Account", "1200 - Bank", "N/C: 1200" -> code and name. */
function splitCodeAndName(text: string): [string, string] {
  const match = /^([A-Za-z]{0,3}[0-9][0-9A-Za-z.\-/]*)\s*(?:[-–:]\s*)?(.*)$/.exec(text.trim());
  return match ? [match[1], match[2].trim()] : ["", text.trim()];
}

const TOTALS = /^(totals?\b|history balance|balance b\/f|balance c\/f|sub-?total|grand total|net\b)/i;

/**
 * Sage 50 Accounts (UK) "Nominal Activity" report exported to CSV or Excel: title lines (date,
 * time, company, page), then per nominal account a section line "N/C: 1200 Name: Bank Current
 * Account ..." followed by its transactions (No, Type, Date, Account, Ref, Details, Dept, T/C,
 * Value, Debit, Credit, V, B), a "Totals:" line and a "History Balance:" line. Dates dd/MM/yyyy.
 * The nominal code and name are printed only on the section line.
 *
 *   No,Type,Date,Account,Ref,Details,Dept,T/C,Value,Debit,Credit,V,B
 *   N/C: 1200,Name: Bank Current Account,,,,,,,,,,,
 *   1,BR,01/03/2024,,CHQ1,Cash sale,0,T1,120.00,120.00,,N,R
 *   ,,,,,,Totals:,,,120.00,0.00,,
 */
export const SAGE50_UK: GroupedFormatDefinition = {
  format: "SAGE50_UK",
  detect(header, rows) {
    const date = findColumn(header, ["date"]);
    const debit = findColumn(header, ["debit"]);
    const credit = findColumn(header, ["credit"]);
    if (date < 0 || debit < 0 || credit < 0) return 0;
    if (findColumn(header, ["t c", "tc", "tax code"]) < 0 || findColumn(header, ["no", "tran no", "trans no"]) < 0) return 0;
    let sections = 0;
    let entries = 0;
    for (const row of rows) {
      if (nominalSection(row)) sections++;
      else if (isDate(cell(row, date)) && (isAmount(cell(row, debit)) || isAmount(cell(row, credit)))) entries++;
    }
    return sections > 0 && entries > 0 ? 0.9 : 0;
  },
  create(header) {
    return new SectionDegrouper(header, ["Nominal Code", "Nominal Name"], nominalSection, ["date"], ["debit", "credit", "value"]);
  },
};

/** The nominal code and name of an "N/C:" section line, or null. */
function nominalSection(values: string[]): [string, string] | null {
  const at = values.findIndex((v) => v.trim() !== "");
  if (at < 0) return null;
  const first = values[at].trim();
  if (!/^n\/c\s*:?/i.test(first)) return null;
  const rest = values.slice(at).join(" ").replace(/^n\/c\s*:?\s*/i, "");
  const code = /^(\S+)/.exec(rest)?.[1] ?? "";
  const name = /name\s*:\s*(.*?)(\s+(account balance|balance)\s*:.*)?$/i.exec(rest)?.[1]?.trim() ?? splitCodeAndName(rest)[1];
  return [code, name];
}

/**
 * CCH account list (CCH ProSystem fx Engagement / CCH Axcess trial balance "Account List" exported
 * to CSV or Excel): a list of accounts, not of entries. Accounts are listed under group headings
 * (a line holding only the group's number and name), each group closed by a "Total ..." line;
 * columns are the account number, its description and balances (unadjusted, adjustments, final,
 * prior year). Flattening gives one row per account with its group's code and name, ready for a
 * chart of accounts or balances source.
 *
 *   Account,Description,Unadjusted,Adjustments,Final,Prior Year
 *   100 Cash and Cash Equivalents,,,,,
 *   1000,Cash - Operating,"12,500.00",0.00,"12,500.00","10,200.00"
 *   Total 100 Cash and Cash Equivalents,,"12,500.00",0.00,"12,500.00","10,200.00"
 */
export const CCH_ACCOUNT_LIST: GroupedFormatDefinition = {
  format: "CCH_ACCOUNT_LIST",
  detect(header, rows) {
    const account = findColumn(header, ["account", "account no", "account number", "acct no"]);
    const description = findColumn(header, ["description", "account description", "account name"]);
    if (account < 0 || description < 0) return 0;
    const balances = BALANCES.map((b) => findColumn(header, [b])).filter((i) => i >= 0);
    if (balances.length === 0 || findColumn(header, ["date"]) >= 0) return 0;
    let groups = 0;
    let accounts = 0;
    let totals = 0;
    for (const row of rows) {
      const label = onlyLabel(row);
      if (label && TOTAL_LINE.test(label)) totals++;
      else if (label) groups++;
      else if (!blank(cell(row, account)) && !blank(cell(row, description)) && balances.some((b) => isAmount(cell(row, b)))) accounts++;
    }
    if (groups === 0 || accounts === 0) return 0;
    return totals > 0 ? 0.85 : 0.6;
  },
  create(header) {
    return new SectionDegrouper(header, ["Group Code", "Group Name"], (values) => {
      const label = onlyLabel(values);
      return label && !TOTAL_LINE.test(label) ? splitCodeAndName(label) : null;
    }, ["account", "account no", "account number", "acct no"], BALANCES);
  },
};

const BALANCES = ["balance", "unadjusted", "unadjusted balance", "adjustments", "adjusted", "final", "final balance", "prior year", "current year", "py final", "cy final", "report balance"];
const TOTAL_LINE = /^total\b/i;

/** The text of a line that holds one value in its first non-blank cell and nothing else. */
function onlyLabel(values: string[]): string | null {
  if (nonBlankCount(values) !== 1) return null;
  const text = values.find((v) => v.trim() !== "")!.trim();
  return isAmount(text) ? null : text;
}

class SectionDegrouper implements Degrouper {
  readonly header: string[];
  private readonly named: number[];
  private readonly key: number;
  private readonly amounts: number[];
  private section: [string, string] = ["", ""];

  constructor(
    raw: string[],
    sectionColumns: [string, string],
    private readonly sectionOf: (values: string[]) => [string, string] | null,
    /** A row is an entry when this column is filled ... */
    key: string[],
    /** ... and one of these holds an amount. */
    amounts: string[],
  ) {
    this.named = namedPositions(raw);
    this.key = findColumn(raw, key);
    this.amounts = amounts.map((a) => findColumn(raw, [a])).filter((i) => i >= 0);
    this.header = [...sectionColumns, ...this.named.map((i) => raw[i].trim())];
  }

  push(values: string[], index: number): FlatRow[] {
    const section = this.sectionOf(values);
    if (section) {
      this.section = section;
      return [];
    }
    if (blank(cell(values, this.key)) || TOTALS.test(cell(values, this.key))) return [];
    if (!this.amounts.some((i) => isAmount(cell(values, i)))) return [];
    return [{ values: [...this.section, ...this.named.map((i) => cell(values, i))], index }];
  }
}
