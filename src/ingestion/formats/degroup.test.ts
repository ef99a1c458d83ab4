import { describe, expect, it } from "vitest";
import {
  CCH_ACCOUNT_LISTING,
  DYNAMICS_GP_JOURNAL,
  ERP_GENERAL_LEDGER,
  QUICKBOOKS_DESKTOP_JOURNAL,
  QUICKBOOKS_ONLINE_JOURNAL,
  QUICKBOOKS_ONLINE_JOURNAL_2024,
  QUICKBOOKS_TRANSACTION_DETAIL,
  SAGE50_GENERAL_JOURNAL,
  SAGE50_GENERAL_LEDGER,
  SAGE50_UK_NOMINAL_ACTIVITY,
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

  it("QuickBooks Online Journal (2024 report view): fills the transaction's fields down, numbers transactions, drops Total for and footer lines", () => {
    const { format, header, rows } = flatten(QUICKBOOKS_ONLINE_JOURNAL_2024);
    expect(format).toBe("QUICKBOOKS_JOURNAL_2024");
    expect(header).toEqual(["Transaction date", "Transaction type", "Num", "Name", "Memo/Description", "Account #", "Full name", "Debit", "Credit", "Transaction Number"]);
    expect(rows).toEqual([
      ["01/03/2024", "Invoice", "1001", "Amy's Bird Sanctuary", "", "1200", "Accounts Receivable (A/R)", "$108.00", "", "1"],
      ["01/03/2024", "Invoice", "1001", "Amy's Bird Sanctuary", "Weekly Gardening Service", "4000", "Services", "", "$100.00", "1"],
      ["01/03/2024", "Invoice", "1001", "Amy's Bird Sanctuary", "Fertilizer 1 lb", "4010", "Landscaping Services:Job Materials", "", "$8.00", "1"],
      ["01/05/2024", "Expense", "", "Hicks Hardware", "", "1000", "Checking", "", "$1,250.00", "2"],
      ["01/05/2024", "Expense", "", "Hicks Hardware", "Lumber", "5100", "Job Expenses:Job Materials", "$1,250.00", "", "2"],
    ]);
  });

  it("Sage 50 General Journal: date and reference on every line, the Total line dropped", () => {
    const { format, header, rows } = flatten(SAGE50_GENERAL_JOURNAL);
    expect(format).toBe("SAGE50_TRANSACTIONS");
    expect(header).toEqual(["Date", "Account ID", "Reference", "Trans Description", "Debit Amt", "Credit Amt"]);
    expect(rows).toEqual([
      ["3/1/24", "10200", "GENJ001", "Owner contribution", "5,000.00", ""],
      ["3/1/24", "39003", "GENJ001", "Owner contribution", "", "5,000.00"],
      ["3/15/24", "10000", "CC0001", "Petty cash replenish", "100.00", ""],
      ["3/15/24", "10200", "CC0001", "Petty cash replenish", "", "100.00"],
      ["3/22/24", "70000", "ADJ-7", "Rent accrual", "750.00", ""],
      ["3/22/24", "23100", "ADJ-7", "Rent accrual", "", "750.00"],
    ]);
  });

  it("Sage 50 (UK) Nominal Activity: the section's nominal code and name on every line, Totals and History Balance dropped", () => {
    const { format, header, rows } = flatten(SAGE50_UK_NOMINAL_ACTIVITY);
    expect(format).toBe("SAGE50_UK");
    expect(header).toEqual(["Nominal Code", "Nominal Name", "No", "Type", "Date", "Account", "Ref", "Details", "Dept", "T/C", "Value", "Debit", "Credit", "V", "B"]);
    expect(rows.map((r) => [r[0], r[1], r[2], r[4], r[11], r[12]])).toEqual([
      ["1200", "Bank Current Account", "41", "04/03/2024", "480.00", ""],
      ["1200", "Bank Current Account", "42", "12/03/2024", "", "120.50"],
      ["1100", "Debtors Control Account", "41", "04/03/2024", "", "480.00"],
      ["2100", "Creditors Control Account", "42", "12/03/2024", "120.50", ""],
    ]);
  });

  it("Microsoft Dynamics GP General Posting Journal: entry number, date, reference and source document filled down", () => {
    const { format, header, rows } = flatten(DYNAMICS_GP_JOURNAL);
    expect(format).toBe("MS_DYNAMICS_JOURNAL");
    expect(header).toEqual(["Journal Entry", "Transaction Date", "Reference", "Source Document", "Account", "Account Description", "Debit", "Credit"]);
    expect(rows).toEqual([
      ["1001", "3/5/2024", "Monthly rent", "GJ", "000-6170-00", "Rent Expense", "2,500.00", ""],
      ["1001", "3/5/2024", "Monthly rent", "GJ", "000-1100-00", "Cash - Operating Account", "", "2,500.00"],
      ["1002", "3/18/2024", "Utilities March", "GJ", "000-6300-00", "Utilities Expense", "412.37", ""],
      ["1002", "3/18/2024", "Utilities March", "GJ", "000-6310-00", "Telephone Expense", "87.63", ""],
      ["1002", "3/18/2024", "Utilities March", "GJ", "000-2100-00", "Accounts Payable", "", "500.00"],
    ]);
  });

  it("CCH account list: one row per account with its group's code and name (an account list, not entries)", () => {
    const { format, header, rows } = flatten(CCH_ACCOUNT_LISTING);
    expect(format).toBe("CCH_ACCOUNT_LIST");
    expect(header).toEqual(["Group Code", "Group Name", "Account", "Description", "Unadjusted", "Adjustments", "Final", "Prior Year"]);
    expect(rows).toEqual([
      ["100", "Cash and Cash Equivalents", "1000", "Cash - Operating", "12,500.00", "0.00", "12,500.00", "10,200.00"],
      ["100", "Cash and Cash Equivalents", "1010", "Petty Cash", "250.00", "0.00", "250.00", "250.00"],
      ["400", "Revenue", "4000", "Product Sales", "(85,000.00)", "(1,200.00)", "(86,200.00)", "(80,100.00)"],
    ]);
  });

  it("each layout is detected as itself only", () => {
    const layouts = [QUICKBOOKS_ONLINE_JOURNAL, QUICKBOOKS_DESKTOP_JOURNAL, QUICKBOOKS_ONLINE_JOURNAL_2024, QUICKBOOKS_TRANSACTION_DETAIL, SAGE50_GENERAL_LEDGER, SAGE50_GENERAL_JOURNAL, SAGE50_UK_NOMINAL_ACTIVITY, DYNAMICS_GP_JOURNAL, CCH_ACCOUNT_LISTING];
    expect(layouts.map((l) => flatten(l).format)).toEqual([
      "QUICKBOOKS_JOURNAL",
      "QUICKBOOKS_JOURNAL",
      "QUICKBOOKS_JOURNAL_2024",
      "QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT",
      "SAGE50_LEDGER",
      "SAGE50_TRANSACTIONS",
      "SAGE50_UK",
      "MS_DYNAMICS_JOURNAL",
      "CCH_ACCOUNT_LIST",
    ]);
  });

  it("flat exports are not mistaken for grouped ones", () => {
    expect(flatten(ERP_GENERAL_LEDGER).format).toBeNull();
    expect(flatten(SIGNED_AMOUNT_LEDGER).format).toBeNull();
  });
});
