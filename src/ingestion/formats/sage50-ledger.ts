import { blank, cell, findColumn, isAmount, isDate, namedPositions, type Degrouper, type FlatRow, type GroupedFormatDefinition } from "./common.js";

/**
 * Sage 50 (US) "General Ledger" report. The account id and description are printed once, on the
 * account's "Beginning Balance" line; its entries follow with those columns blank; "Current Period
 * Change" and "Ending Balance" lines close the account; dates are M/d/yy.
 *
 *   Account ID,Account Description,Date,Reference,Jrnl,Trans Description,Debit Amt,Credit Amt,Balance
 *   10000,Petty Cash,3/1/23,,,Beginning Balance,,,327.55
 *   ,,3/15/23,CC0001,GENJ,Petty cash replenish,100.00,,
 *   ,,,,,Current Period Change,100.00,,100.00
 *   ,,3/31/23,,,Ending Balance,,,427.55
 */

const ACCOUNT_ID = ["account id", "account no", "account number", "gl account id"];
const ACCOUNT_DESCRIPTION = ["account description", "description"];
const DATE = ["date"];
const DEBIT = ["debit amt", "debit amount", "debit"];
const CREDIT = ["credit amt", "credit amount", "credit"];
const TRANSACTION_DESCRIPTION = ["trans description", "transaction description", "description"];
const REPORT_LINES = /^(beginning balance|current period change|ending balance|total|report total|net change)\b/i;

export const SAGE50_LEDGER: GroupedFormatDefinition = {
  format: "SAGE50_LEDGER",
  detect(header, rows) {
    const id = findColumn(header, ACCOUNT_ID);
    const date = findColumn(header, DATE);
    const debit = findColumn(header, DEBIT);
    const credit = findColumn(header, CREDIT);
    if (id < 0 || date < 0 || debit < 0 || credit < 0) return 0;
    const description = findColumn(header, TRANSACTION_DESCRIPTION);
    let reportLines = 0;
    let filledDown = 0;
    for (const row of rows) {
      if (REPORT_LINES.test(cell(row, description))) reportLines++;
      else if (blank(cell(row, id)) && isDate(cell(row, date))) filledDown++;
    }
    if (filledDown === 0) return 0;
    const jrnl = findColumn(header, ["jrnl", "journal"]) >= 0;
    return reportLines > 0 ? (jrnl ? 0.95 : 0.85) : 0.6;
  },
  create(header) {
    return new Sage50LedgerDegrouper(header);
  },
};

class Sage50LedgerDegrouper implements Degrouper {
  readonly header: string[];
  private readonly named: number[];
  private readonly id: number;
  private readonly accountDescription: number;
  private readonly description: number;
  private readonly date: number;
  private readonly debit: number;
  private readonly credit: number;
  private accountId = "";
  private accountName = "";

  constructor(raw: string[]) {
    this.named = namedPositions(raw);
    this.id = findColumn(raw, ACCOUNT_ID);
    this.accountDescription = findColumn(raw, ACCOUNT_DESCRIPTION);
    this.description = findColumn(raw, ["trans description", "transaction description"]);
    this.date = findColumn(raw, DATE);
    this.debit = findColumn(raw, DEBIT);
    this.credit = findColumn(raw, CREDIT);
    this.header = this.named.map((i) => raw[i].trim());
  }

  push(values: string[], index: number): FlatRow[] {
    const id = cell(values, this.id);
    if (!blank(id)) {
      this.accountId = id;
      this.accountName = cell(values, this.accountDescription);
    }
    if (REPORT_LINES.test(cell(values, this.description))) return [];
    if (!isDate(cell(values, this.date))) return [];
    if (!isAmount(cell(values, this.debit)) && !isAmount(cell(values, this.credit))) return [];
    const filled = values.slice();
    if (this.id >= 0) filled[this.id] = this.accountId;
    if (this.accountDescription >= 0 && this.accountDescription !== this.description) filled[this.accountDescription] = this.accountName;
    return [{ values: this.named.map((i) => cell(filled, i)), index }];
  }
}
