import { describe, expect, it } from "vitest";
import {
  ERP_GENERAL_LEDGER,
  QUICKBOOKS_DESKTOP_JOURNAL,
  QUICKBOOKS_ONLINE_JOURNAL,
  QUICKBOOKS_TRANSACTION_DETAIL,
  SAGE50_GENERAL_LEDGER,
  SIGNED_AMOUNT_LEDGER,
} from "../../../test/ingestion/fixtures.js";
import { detectHeaderRow, sampleRecords } from "../csv/sniff.js";
import { createDegrouper, detectGroupedFormat } from "./index.js";

function flatten(text: string): { format: string | null; header: string[]; rows: string[][] } {
  const records = sampleRecords(new TextEncoder().encode(text), ",", '"', 1000, true);
  const headerIndex = detectHeaderRow(records).headerRowIndex!;
  const header = records[headerIndex];
  const body = records.slice(headerIndex + 1);
  const format = detectGroupedFormat(header, body);
  if (!format) return { format, header, rows: [] };
  const degrouper = createDegrouper(format, header);
  const rows = body.flatMap((r, i) => degrouper.push(r, headerIndex + 1 + i).map((x) => x.values));
  return { format, header: degrouper.header, rows };
}

describe("grouped formats", () => {
  it("QuickBooks Online Journal: copies date/type/number/name down, numbers transactions, drops totals and footer", () => {
    const { format, header, rows } = flatten(QUICKBOOKS_ONLINE_JOURNAL);
    expect(format).toBe("QUICKBOOKS_JOURNAL");
    expect(header).toEqual(["Date", "Transaction Type", "Num", "Name", "Memo/Description", "Account", "Debit", "Credit", "Transaction Number"]);
    expect(rows).toEqual([
      ["01/03/2023", "Invoice", "1001", "Amy's Bird Sanctuary", "", "Accounts Receivable (A/R)", "$108.00", "", "1"],
      ["01/03/2023", "Invoice", "1001", "Amy's Bird Sanctuary", "Weekly Gardening Service", "Services", "", "$100.00", "1"],
      ["01/03/2023", "Invoice", "1001", "Amy's Bird Sanctuary", "Fertilizer 1 lb", "Landscaping Services:Job Materials:Fountains and Garden Lighting", "", "$8.00", "1"],
      ["01/05/2023", "Expense", "", "Hicks Hardware", "", "Checking", "", "$1,250.00", "2"],
      ["01/05/2023", "Expense", "", "Hicks Hardware", "Lumber", "Job Expenses:Job Materials", "$1,250.00", "", "2"],
      ["02/14/2023", "Journal Entry", "JE-7", "", "Accrual", "Utilities", "$310.40", "", "3"],
      ["02/14/2023", "Journal Entry", "JE-7", "", "Accrual", "Accrued Liabilities", "", "$310.40", "3"],
    ]);
  });

  it("QuickBooks Desktop Journal: keeps Trans #, keeps a line's own name, fills the transaction's", () => {
    const { format, header, rows } = flatten(QUICKBOOKS_DESKTOP_JOURNAL);
    expect(format).toBe("QUICKBOOKS_JOURNAL");
    expect(header).toEqual(["Trans #", "Type", "Date", "Num", "Adj", "Name", "Memo", "Account", "Debit", "Credit"]);
    expect(rows).toEqual([
      ["1", "General Journal", "01/01/2023", "1", "", "", "Opening balance", "10100 · Checking", "5,000.00", ""],
      ["1", "General Journal", "01/01/2023", "1", "", "", "Opening balance", "30000 · Opening Balance Equity", "", "5,000.00"],
      ["2", "Check", "01/05/2023", "1001", "", "Office Depot", "Supplies", "10100 · Checking", "", "45.99"],
      ["2", "Check", "01/05/2023", "1001", "", "Office Depot", "Supplies", "64900 · Office Supplies", "45.99", ""],
    ]);
  });

  it("QuickBooks Transaction Detail by Account: the section's account (and parent) on every entry", () => {
    const { format, header, rows } = flatten(QUICKBOOKS_TRANSACTION_DETAIL);
    expect(format).toBe("QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT");
    expect(header).toEqual(["Account", "Parent Account", "Date", "Transaction Type", "Num", "Name", "Memo/Description", "Split", "Amount", "Balance"]);
    expect(rows.map((r) => [r[0], r[1], r[2], r[8]])).toEqual([
      ["Checking", "", "01/01/2023", "5,000.00"],
      ["Checking", "", "01/05/2023", "-250.00"],
      ["Job Materials", "Job Expenses", "01/05/2023", "250.00"],
      ["Job Expenses", "", "01/20/2023", "120.00"],
      ["Opening Balance Equity", "", "01/01/2023", "-5,000.00"],
    ]);
  });

  it("Sage 50 General Ledger: account id and description on every entry, balance lines dropped", () => {
    const { format, header, rows } = flatten(SAGE50_GENERAL_LEDGER);
    expect(format).toBe("SAGE50_LEDGER");
    expect(header).toEqual(["Account ID", "Account Description", "Date", "Reference", "Jrnl", "Trans Description", "Debit Amt", "Credit Amt", "Balance"]);
    expect(rows.map((r) => [r[0], r[1], r[2], r[4], r[6], r[7]])).toEqual([
      ["10000", "Petty Cash", "3/15/23", "GENJ", "100.00", ""],
      ["10200", "Regular Checking Account", "3/4/23", "CRJ", "1,215.00", ""],
      ["10200", "Regular Checking Account", "3/15/23", "GENJ", "", "100.00"],
      ["10200", "Regular Checking Account", "3/22/23", "CDJ", "", "575.00"],
      ["11000", "Accounts Receivable", "3/4/23", "CRJ", "", "1,215.00"],
      ["11000", "Accounts Receivable", "3/22/23", "CDJ", "575.00", ""],
    ]);
  });

  it("flat exports are not mistaken for grouped ones", () => {
    expect(flatten(ERP_GENERAL_LEDGER).format).toBeNull();
    expect(flatten(SIGNED_AMOUNT_LEDGER).format).toBeNull();
  });
});
