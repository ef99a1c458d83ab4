import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import iconv from "iconv-lite";

/**
 * Files shaped like real accounting-package exports, written by the tests themselves (nothing
 * binary is committed). Each layout mirrors its package's export: title and footer lines, unnamed
 * leading columns, totals, date and amount formats, encodings.
 */
export class FixtureDir {
  readonly path = mkdtempSync(join(tmpdir(), "ingest-fixtures-"));

  write(name: string, content: string | Buffer): string {
    const file = join(this.path, name);
    writeFileSync(file, content);
    return file;
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A general ledger export from an ERP (English headers, US dates, thousands separators, quoted
 * memos with commas, quotes and a line break), with the flaws the metrics must find: one duplicate
 * line, one unparseable date, one blank account, one blank line. 3 balanced transactions + 1
 * unbalanced (JE1004, off by 10.00).
 */
export const ERP_GENERAL_LEDGER = [
  "Journal ID,Line,Effective Date,Entry Date,Account,Account Description,Debit,Credit,Memo,Source,Entered By,Approved By,Currency",
  'JE1001,1,01/15/2023,01/16/2023,10100,Cash - Operating,"1,250.00",,"Invoice 4471, freight",AR,jsmith,mdupont,USD',
  "JE1001,2,01/15/2023,01/16/2023,40100,Product Revenue,,\"1,250.00\",\"Invoice 4471, freight\",AR,jsmith,mdupont,USD",
  'JE1002,1,02/28/2023,03/01/2023,60100,Office Supplies,45.99,,"Paper ""A4"" and toner",AP,kmueller,mdupont,USD',
  "JE1002,2,02/28/2023,03/01/2023,20100,Accounts Payable,,45.99,Paper,AP,kmueller,mdupont,USD",
  "JE1002,2,02/28/2023,03/01/2023,20100,Accounts Payable,,45.99,Paper,AP,kmueller,mdupont,USD",
  "JE1002,3,02/28/2023,03/01/2023,60100,Office Supplies,45.99,,Paper,AP,kmueller,mdupont,USD",
  "",
  'JE1003,1,13/45/2023,03/31/2023,,Unknown,100.00,,"Reclass per review,\nsee memo",GJ,lgarcia,,USD',
  "JE1003,2,03/31/2023,03/31/2023,10100,Cash - Operating,,100.00,Reclass,GJ,lgarcia,,USD",
  "JE1004,1,12/31/2022,12/31/2022,70100,Depreciation,510.00,,Year end,GJ,apatel,mdupont,USD",
  "JE1004,2,12/31/2022,12/31/2022,15100,Accumulated Depreciation,,500.00,Year end,GJ,apatel,mdupont,USD",
].join("\r\n") + "\r\n";

/**
 * A French FEC (fichier des écritures comptables): semicolon-separated, Windows-1252, decimal
 * comma, yyyyMMdd dates, the FEC's fixed column names.
 */
export function frenchFec(): Buffer {
  const lines = [
    "JournalCode;JournalLib;EcritureNum;EcritureDate;CompteNum;CompteLib;CompAuxNum;CompAuxLib;PieceRef;PieceDate;EcritureLib;Debit;Credit;EcritureLet;DateLet;ValidDate;Montantdevise;Idevise",
    "VT;Ventes;VT000001;20230105;411000;Clients;C001;Société Générale;F2023-001;20230105;Facture n°1 – électricité;1234,56;0,00;;;20230106;;",
    "VT;Ventes;VT000001;20230105;706000;Prestations de services;;;F2023-001;20230105;Facture n°1 – électricité;0,00;1028,80;;;20230106;;",
    "VT;Ventes;VT000001;20230105;445710;TVA collectée;;;F2023-001;20230105;Facture n°1 – électricité;0,00;205,76;;;20230106;;",
    "BQ;Banque;BQ000001;20230210;512000;Banque;;;REL-02;20230210;Règlement client;1234,56;0,00;;;20230211;;",
    "BQ;Banque;BQ000001;20230210;411000;Clients;C001;Société Générale;REL-02;20230210;Règlement client;0,00;1234,56;;;20230211;;",
  ];
  return iconv.encode(lines.join("\r\n") + "\r\n", "win1252");
}

/** A German ledger export: UTF-16LE with BOM, tab-separated, dd.MM.yyyy, 1.234,56, German headers. */
export function germanLedger(): Buffer {
  const lines = [
    "Belegnummer\tBuchungsdatum\tErfassungsdatum\tKonto\tKontobezeichnung\tBuchungstext\tSoll\tHaben\tWährung\tErfasser",
    "B-100\t02.01.2023\t03.01.2023\t1200\tBank\tÜberweisung Müller GmbH\t2.380,00\t\tEUR\tHMEIER",
    "B-100\t02.01.2023\t03.01.2023\t8400\tErlöse 19 % USt\tÜberweisung Müller GmbH\t\t2.000,00\tEUR\tHMEIER",
    "B-100\t02.01.2023\t03.01.2023\t1776\tUmsatzsteuer 19 %\tÜberweisung Müller GmbH\t\t380,00\tEUR\tHMEIER",
    "B-101\t15.02.2023\t15.02.2023\t4930\tBürobedarf\tBüromaterial\t119,00\t\tEUR\tSKRAUSE",
    "B-101\t15.02.2023\t15.02.2023\t1200\tBank\tBüromaterial\t\t119,00\tEUR\tSKRAUSE",
  ];
  return Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(lines.join("\r\n") + "\r\n", "utf16le")]);
}

/** A Spanish ledger: UTF-8 without BOM, semicolons, dd/MM/yyyy, decimal comma, Spanish headers. */
export const SPANISH_LEDGER = [
  "Fecha;Asiento;Cuenta;Descripción de la cuenta;Concepto;Debe;Haber;Usuario",
  "03/01/2023;1;5720001;Bancos c/c;Cobro factura A-17;1.512,50;;mgarcia",
  "03/01/2023;1;4300001;Clientes;Cobro factura A-17;;1.512,50;mgarcia",
  "25/01/2023;2;6290000;Otros servicios;Alquiler enero;800,00;;jlopez",
  "25/01/2023;2;5720001;Bancos c/c;Alquiler enero;;800,00;jlopez",
].join("\n") + "\n";

/**
 * A signed-amount export from a small-business package: parentheses and trailing-minus negatives,
 * currency symbols, and dates whose day never exceeds 12 (ambiguous between MM/dd and dd/MM).
 */
export const SIGNED_AMOUNT_LEDGER = [
  "Txn Date,JE Number,GL Account,Account Name,Amount,Description",
  "01/02/2023,100,1000,Cash,\"$1,500.00\",Owner contribution",
  "01/02/2023,100,3000,Owner Equity,\"($1,500.00)\",Owner contribution",
  "02/03/2023,101,6000,Rent,750.00,March rent",
  "02/03/2023,101,1000,Cash,750.00-,March rent",
  "03/04/2023,102,6100,Utilities,$99.95,Power",
  "03/04/2023,102,2000,Accounts Payable,($99.95),Power",
].join("\n") + "\n";

/**
 * QuickBooks Online "Journal" report exported to CSV: title lines, an unnamed first column, the
 * transaction's date/type/number/name on its first line only, a totals line and a blank line after
 * each transaction, a TOTAL line and the basis/timestamp footer.
 */
export const QUICKBOOKS_ONLINE_JOURNAL = [
  "Journal",
  "Craig's Design and Landscaping Services",
  '"January 1 - December 31, 2023"',
  "",
  ",Date,Transaction Type,Num,Name,Memo/Description,Account,Debit,Credit",
  ",01/03/2023,Invoice,1001,Amy's Bird Sanctuary,,Accounts Receivable (A/R),$108.00,",
  ",,,,,Weekly Gardening Service,Services,,$100.00",
  ",,,,,Fertilizer 1 lb,Landscaping Services:Job Materials:Fountains and Garden Lighting,,$8.00",
  ",,,,,,,$108.00,$108.00",
  ",,,,,,,,",
  ',01/05/2023,Expense,,Hicks Hardware,,Checking,,"$1,250.00"',
  ',,,,,Lumber,Job Expenses:Job Materials,"$1,250.00",',
  ',,,,,,,"$1,250.00","$1,250.00"',
  ",,,,,,,,",
  ",02/14/2023,Journal Entry,JE-7,,Accrual,Utilities,$310.40,",
  ",,,,,Accrual,Accrued Liabilities,,$310.40",
  ",,,,,,,$310.40,$310.40",
  ",,,,,,,,",
  'TOTAL,,,,,,,"$1,668.40","$1,668.40"',
  ",,,,,,,,",
  ",,,,,,,,",
  '"Accrual Basis Tuesday, January 9, 2024 10:15 AM GMT-08:00"',
].join("\n") + "\n";

/** QuickBooks Desktop "Journal" exported to CSV: two unnamed leading columns, Trans #, Adj, accounts with numbers. */
export const QUICKBOOKS_DESKTOP_JOURNAL = [
  ",,Trans #,Type,Date,Num,Adj,Name,Memo,Account,Debit,Credit",
  ',,1,General Journal,01/01/2023,1,,,Opening balance,10100 · Checking,"5,000.00",',
  ',,,,,,,,Opening balance,30000 · Opening Balance Equity,,"5,000.00"',
  ',,,,,,,,,,"5,000.00","5,000.00"',
  ",,,,,,,,,,,",
  ",,2,Check,01/05/2023,1001,,Office Depot,Supplies,10100 · Checking,,45.99",
  ",,,,,,,Office Depot,Supplies,64900 · Office Supplies,45.99,",
  ",,,,,,,,,,45.99,45.99",
  ",,,,,,,,,,,",
  'TOTAL,,,,,,,,,,"5,045.99","5,045.99"',
].join("\r\n") + "\r\n";

/**
 * QuickBooks Online "Transaction Detail by Account": sections headed by an account on a line of its
 * own, a sub-account section nested in its parent, "Total for ..." lines, a TOTAL and a footer.
 */
export const QUICKBOOKS_TRANSACTION_DETAIL = [
  "Transaction Detail by Account",
  "Craig's Design and Landscaping Services",
  '"January - December 2023"',
  "",
  ",Date,Transaction Type,Num,Name,Memo/Description,Split,Amount,Balance",
  "Checking,,,,,,,,",
  ',01/01/2023,Deposit,,,Opening Balance,Opening Balance Equity,"5,000.00","5,000.00"',
  ",01/05/2023,Expense,1001,Hicks Hardware,Lumber,Job Materials,-250.00,\"4,750.00\"",
  'Total for Checking,,,,,,,"$4,750.00",',
  "Job Expenses,,,,,,,,",
  "Job Materials,,,,,,,,",
  ",01/05/2023,Expense,1001,Hicks Hardware,Lumber,Checking,250.00,250.00",
  "Total for Job Materials,,,,,,,$250.00,",
  ",01/20/2023,Bill,77,Tania's Nursery,Plants,Accounts Payable (A/P),120.00,370.00",
  "Total for Job Expenses,,,,,,,$370.00,",
  "Opening Balance Equity,,,,,,,,",
  ',01/01/2023,Deposit,,,Opening Balance,Checking,"-5,000.00","-5,000.00"',
  'Total for Opening Balance Equity,,,,,,,"-$5,000.00",',
  "TOTAL,,,,,,,-$130.00,",
  "",
  '"Accrual basis Monday, February 5, 2024 09:12 AM GMT-08:00"',
].join("\n") + "\n";

/**
 * Sage 50 (US) "General Ledger" report: report title lines, the account id and description on the
 * Beginning Balance line only, M/d/yy dates, Current Period Change and Ending Balance lines.
 */
export const SAGE50_GENERAL_LEDGER = [
  "Bellwether Garden Supply",
  "General Ledger",
  "For the Period From Mar 1, 2023 to Mar 31, 2023",
  "Filter Criteria includes: Report order is by ID. Report is printed in Detail Format.",
  "",
  "Account ID,Account Description,Date,Reference,Jrnl,Trans Description,Debit Amt,Credit Amt,Balance",
  "10000,Petty Cash,3/1/23,,,Beginning Balance,,,327.55",
  ",,3/15/23,CC0001,GENJ,Petty cash replenish,100.00,,",
  ",,,,,Current Period Change,100.00,,100.00",
  ",,3/31/23,,,Ending Balance,,,427.55",
  "10200,Regular Checking Account,3/1/23,,,Beginning Balance,,,\"12,850.45\"",
  ",,3/4/23,10284,CRJ,Teesdale Real Estate - Invoice 10284,\"1,215.00\",,",
  ",,3/15/23,CC0001,GENJ,Petty cash replenish,,100.00,",
  ",,3/22/23,3301,CDJ,Abney and Son Contractors,,575.00,",
  ",,,,,Current Period Change,\"1,215.00\",675.00,540.00",
  ",,3/31/23,,,Ending Balance,,,\"13,390.45\"",
  "11000,Accounts Receivable,3/1/23,,,Beginning Balance,,,\"5,230.00\"",
  ",,3/4/23,10284,CRJ,Teesdale Real Estate - Invoice 10284,,\"1,215.00\",",
  ",,3/22/23,3301,CDJ,Abney and Son Contractors,575.00,,",
  ",,,,,Current Period Change,575.00,\"1,215.00\",-640.00",
  ",,3/31/23,,,Ending Balance,,,\"4,590.00\"",
].join("\r\n") + "\r\n";

/** Rows of data without a header row (some exports omit it). */
export const HEADERLESS = ["1001,2023-01-05,10100,250.00,", "1001,2023-01-05,40100,,250.00", "1002,2023-02-01,60100,80.00,", "1002,2023-02-01,20100,,80.00"].join("\n") + "\n";

/**
 * QuickBooks Online "Journal" in the 2024 report view: title lines, no unnamed leading column,
 * "Transaction date" and "Full name" headers with an account number column, the transaction's
 * fields on its first line only, "Total for ..." lines, a TOTAL line and the footer.
 */
export const QUICKBOOKS_ONLINE_JOURNAL_2024 = [
  "Journal",
  "Craig's Design and Landscaping Services",
  '"January 1-December 31, 2024"',
  "",
  "Transaction date,Transaction type,Num,Name,Memo/Description,Account #,Full name,Debit,Credit",
  "01/03/2024,Invoice,1001,Amy's Bird Sanctuary,,1200,Accounts Receivable (A/R),$108.00,",
  ",,,,Weekly Gardening Service,4000,Services,,$100.00",
  ",,,,Fertilizer 1 lb,4010,Landscaping Services:Job Materials,,$8.00",
  "Total for Invoice 1001,,,,,,,$108.00,$108.00",
  "",
  '01/05/2024,Expense,,Hicks Hardware,,1000,Checking,,"$1,250.00"',
  ',,,,Lumber,5100,Job Expenses:Job Materials,"$1,250.00",',
  'Total for Expense,,,,,,,"$1,250.00","$1,250.00"',
  "",
  'TOTAL,,,,,,,"$1,358.00","$1,358.00"',
  "",
  '"Accrual basis Monday, January 8, 2024 09:00 AM GMT-08:00"',
].join("\n") + "\n";

/**
 * Sage 50 (US) "General Journal": title and filter lines, the entry's date and reference on its
 * first line only, M/d/yy dates, a Total line at the end.
 */
export const SAGE50_GENERAL_JOURNAL = [
  "Bellwether Garden Supply",
  "General Journal",
  "For the Period From Mar 1, 2024 to Mar 31, 2024",
  "Filter Criteria includes: Report order is by Date. Report is printed with shortened descriptions and in Detail Format.",
  "",
  "Date,Account ID,Reference,Trans Description,Debit Amt,Credit Amt",
  '3/1/24,10200,GENJ001,Owner contribution,"5,000.00",',
  ',39003,,Owner contribution,,"5,000.00"',
  "3/15/24,10000,CC0001,Petty cash replenish,100.00,",
  ",10200,,Petty cash replenish,,100.00",
  "3/22/24,70000,ADJ-7,Rent accrual,750.00,",
  ",23100,,Rent accrual,,750.00",
  ',,,Total,"5,850.00","5,850.00"',
].join("\r\n") + "\r\n";

/**
 * Sage 50 Accounts (UK) "Nominal Activity": report header lines, a section line per nominal code,
 * dd/MM/yyyy dates, Totals and History Balance lines.
 */
export const SAGE50_UK_NOMINAL_ACTIVITY = [
  "Date: 31/03/2024,,Stationery & Computer Mart UK,,,,,,,,,,Page: 1",
  "Time: 10:15:32,,Nominal Activity,,,,,,,,,,",
  "Date From: 01/03/2024,,,,,,,,,,,,",
  "",
  "No,Type,Date,Account,Ref,Details,Dept,T/C,Value,Debit,Credit,V,B",
  "N/C: 1200,Name: Bank Current Account,,,,,,,,,,,",
  "41,SR,04/03/2024,BRO001,1024,Sales Receipt,0,T9,480.00,480.00,,-,R",
  "42,PP,12/03/2024,SUP002,BACS,Purchase Payment,0,T9,120.50,,120.50,-,R",
  ",,,,,,Totals:,,,480.00,120.50,,",
  ",,,,,,History Balance:,,,359.50,,,",
  "N/C: 1100,Name: Debtors Control Account,,,,,,,,,,,",
  "41,SR,04/03/2024,BRO001,1024,Sales Receipt,0,T9,480.00,,480.00,-,-",
  ",,,,,,Totals:,,,0.00,480.00,,",
  "N/C: 2100,Name: Creditors Control Account,,,,,,,,,,,",
  "42,PP,12/03/2024,SUP002,BACS,Purchase Payment,0,T9,120.50,120.50,,-,-",
  ",,,,,,Totals:,,,120.50,0.00,,",
].join("\r\n") + "\r\n";

/**
 * Microsoft Dynamics GP "General Posting Journal": System/User Date header lines, the journal
 * entry's number, date, reference and source document on its first distribution only, a Total
 * Distributions line per entry.
 */
export const DYNAMICS_GP_JOURNAL = [
  "System: 3/31/2024 10:15:20 AM,,Fabrikam Inc.,,,,,Page: 1",
  "User Date: 3/31/2024,,GENERAL POSTING JOURNAL,,,,,User ID: sa",
  "",
  "Journal Entry,Transaction Date,Reference,Source Document,Account,Account Description,Debit,Credit",
  '1001,3/5/2024,Monthly rent,GJ,000-6170-00,Rent Expense,"2,500.00",',
  ',,,,000-1100-00,Cash - Operating Account,,"2,500.00"',
  ',,,,,Total Distributions,"2,500.00","2,500.00"',
  "1002,3/18/2024,Utilities March,GJ,000-6300-00,Utilities Expense,412.37,",
  ",,,,000-6310-00,Telephone Expense,87.63,",
  ",,,,000-2100-00,Accounts Payable,,500.00",
  ",,,,,Total Distributions,500.00,500.00",
].join("\r\n") + "\r\n";

/**
 * CCH account list (trial balance account listing): accounts under group headings with their
 * balances, "Total ..." lines per group. A list of accounts, not of entries.
 */
export const CCH_ACCOUNT_LISTING = [
  "ABC Manufacturing Inc.",
  "Account List",
  "Year End: 12/31/2024",
  "",
  "Account,Description,Unadjusted,Adjustments,Final,Prior Year",
  "100 Cash and Cash Equivalents,,,,,",
  '1000,Cash - Operating,"12,500.00",0.00,"12,500.00","10,200.00"',
  "1010,Petty Cash,250.00,0.00,250.00,250.00",
  'Total 100 Cash and Cash Equivalents,,"12,750.00",0.00,"12,750.00","10,450.00"',
  "400 Revenue,,,,,",
  '4000,Product Sales,"(85,000.00)","(1,200.00)","(86,200.00)","(80,100.00)"',
  'Total 400 Revenue,,"(85,000.00)","(1,200.00)","(86,200.00)","(80,100.00)"',
].join("\n") + "\n";
