import iconv from "iconv-lite";

/**
 * A small general ledger with known truth, written in the layout of each supported package and
 * language. Tests ingest each rendering and compare every stored entry (transaction, account,
 * signed amount in cents, effective date) with the truth. Every entry's amount is distinct, so a
 * stored entry is matched to its true one by amount alone and nothing can be matched twice.
 */
export interface TruthEntry {
  txid: string;
  /** 1-based transaction number (what layouts without an id of their own number). */
  tx: number;
  account: string;
  accountName: string;
  /** ISO date. */
  date: string;
  /** Signed amount in cents (debit positive). */
  cents: number;
  memo: string;
}

const ACCOUNTS: [string, string][] = [
  ["1000", "Checking"],
  ["1200", "Accounts Receivable"],
  ["1500", "Inventory"],
  ["2000", "Accounts Payable"],
  ["2100", "Accrued Liabilities"],
  ["4000", "Sales"],
  ["5000", "Cost of Goods Sold"],
  ["6100", "Rent Expense"],
];

/** Deterministic ledger: `transactions` balanced transactions of 2-4 lines in 2023, amounts from 0.01 to 25,000.00. */
export function generateTruth(transactions = 10, seed = 11): TruthEntry[] {
  let state = seed >>> 0;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const used = new Set<number>();
  const amount = (max: number) => {
    for (;;) {
      const cents = 1 + Math.floor(rand() * max);
      if (!used.has(cents)) {
        used.add(cents);
        return cents;
      }
    }
  };
  const entries: TruthEntry[] = [];
  for (let tx = 1; tx <= transactions; tx++) {
    const lines = 2 + Math.floor(rand() * 3);
    // Days past the 12th in most transactions (so that no date column is ambiguous), months all year.
    const date = new Date(Date.UTC(2023, Math.floor(rand() * 12), 13 + Math.floor(rand() * 15))).toISOString().slice(0, 10);
    const debits: number[] = [];
    for (let i = 0; i < lines - 1; i++) debits.push(amount(2_500_000));
    const total = debits.reduce((a, b) => a + b, 0);
    // Credits are negative, debits positive: a signed amount is unique even when a credit equals a debit.
    if (used.has(-total)) throw new Error("the generator drew a duplicate amount: change the seed");
    used.add(-total);
    const memo = ["Monthly accrual", "Invoice 4471, freight", "Reclass per review", "Supplier payment"][tx % 4];
    const accounts = [...ACCOUNTS].sort(() => rand() - 0.5).slice(0, lines);
    const txid = `JE${String(tx).padStart(4, "0")}`;
    debits.forEach((cents, i) => entries.push({ txid, tx, account: accounts[i][0], accountName: accounts[i][1], date, cents, memo }));
    entries.push({ txid, tx, account: accounts[lines - 1][0], accountName: accounts[lines - 1][1], date, cents: -total, memo });
  }
  return entries;
}

// ---- value formats -------------------------------------------------------------------------

const [Y, M, D] = [(d: string) => d.slice(0, 4), (d: string) => d.slice(5, 7), (d: string) => d.slice(8, 10)];
const mdy = (d: string) => `${M(d)}/${D(d)}/${Y(d)}`;
const shortMdy = (d: string) => `${Number(M(d))}/${Number(D(d))}/${Y(d).slice(2)}`;
const dmy = (d: string, sep = "/") => `${D(d)}${sep}${M(d)}${sep}${Y(d)}`;
const compact = (d: string) => d.replace(/-/g, "");
/** 1,234.56 (or with another grouping and decimal mark). */
function money(cents: number, group = ",", decimal = "."): string {
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+$)/g, group);
  return `${cents < 0 ? "-" : ""}${whole}${decimal}${String(abs % 100).padStart(2, "0")}`;
}
const csv = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const line = (cells: string[], delimiter = ",") => cells.map((c) => (delimiter === "," ? csv(c) : c)).join(delimiter);
const debitOf = (e: TruthEntry, format = (c: number) => money(c)) => (e.cents > 0 ? format(e.cents) : "");
const creditOf = (e: TruthEntry, format = (c: number) => money(c)) => (e.cents < 0 ? format(-e.cents) : "");
function groupBy<K>(entries: TruthEntry[], key: (e: TruthEntry) => K): TruthEntry[][] {
  const groups = new Map<K, TruthEntry[]>();
  for (const e of entries) groups.set(key(e), [...(groups.get(key(e)) ?? []), e]);
  return [...groups.values()];
}
const byTx = (truth: TruthEntry[]) => groupBy(truth, (e) => e.tx);
const byAccount = (truth: TruthEntry[]) => groupBy([...truth].sort((a, b) => a.account.localeCompare(b.account) || a.date.localeCompare(b.date) || a.tx - b.tx), (e) => e.account);

export interface Rendering {
  /** What the stored `account` of an entry must be (each package writes accounts its own way). */
  account: (e: TruthEntry) => string;
  /** False for layouts that carry no transaction identity (entries are compared without it). */
  transactions: boolean;
  degroup: boolean;
  content: string | Buffer;
}

/** The flat and grouped text layouts, by name. */
export const TEXT_LAYOUTS: Record<string, (truth: TruthEntry[]) => Rendering> = {
  "ERP export (English, MM/dd/yyyy, 1,234.56)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    content:
      [
        "Journal ID,Line,Effective Date,Account,Account Description,Debit,Credit,Memo",
        ...truth.map((e, i) => line([e.txid, String(i + 1), mdy(e.date), e.account, e.accountName, debitOf(e), creditOf(e), e.memo])),
      ].join("\r\n") + "\r\n",
  }),
  "French FEC (Windows-1252, yyyyMMdd, 1234,56)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    content: iconv.encode(
      [
        "JournalCode;JournalLib;EcritureNum;EcritureDate;CompteNum;CompteLib;CompAuxNum;CompAuxLib;PieceRef;PieceDate;EcritureLib;Debit;Credit;EcritureLet;DateLet;ValidDate;Montantdevise;Idevise",
        ...truth.map((e) =>
          [
            "OD", "Opérations diverses", e.txid, compact(e.date), e.account, `${e.accountName} é`, "", "", `P-${e.tx}`, compact(e.date), `Écriture ${e.memo.replace(/,/g, "")}`,
            e.cents > 0 ? money(e.cents, "", ",") : "0,00", e.cents < 0 ? money(-e.cents, "", ",") : "0,00", "", "", compact(e.date), "", "",
          ].join(";"),
        ),
      ].join("\r\n") + "\r\n",
      "win1252",
    ),
  }),
  "German export (UTF-16LE, tabs, dd.MM.yyyy, 1.234,56)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    content: Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      iconv.encode(
        [
          "Belegnummer\tBuchungsdatum\tKonto\tKontobezeichnung\tBuchungstext\tSoll\tHaben\tWährung",
          ...truth.map((e) => [e.txid, dmy(e.date, "."), e.account, `${e.accountName} ü`, e.memo, debitOf(e, (c) => money(c, ".", ",")), creditOf(e, (c) => money(c, ".", ",")), "EUR"].join("\t")),
        ].join("\r\n") + "\r\n",
        "utf16le",
      ),
    ]),
  }),
  "Spanish ledger (semicolons, dd/MM/yyyy, 1.234,56)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    content:
      [
        "Fecha;Asiento;Cuenta;Descripción de la cuenta;Concepto;Debe;Haber",
        ...truth.map((e) => [dmy(e.date), String(e.tx), e.account, e.accountName, e.memo.replace(/,/g, ""), debitOf(e, (c) => money(c, ".", ",")), creditOf(e, (c) => money(c, ".", ","))].join(";")),
      ].join("\n") + "\n",
  }),
  "signed amounts ($, parentheses for negatives)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    content:
      [
        "Txn Date,JE Number,GL Account,Account Name,Amount,Description",
        ...truth.map((e) => line([mdy(e.date), String(e.tx), e.account, e.accountName, e.cents < 0 ? `($${money(-e.cents)})` : `$${money(e.cents)}`, e.memo])),
      ].join("\n") + "\n",
  }),
  "QuickBooks Online Journal": (truth) => ({
    account: (e) => e.accountName,
    transactions: true,
    degroup: true,
    content:
      [
        "Journal",
        "Test Company",
        '"January 1 - December 31, 2023"',
        "",
        ",Date,Transaction Type,Num,Name,Memo/Description,Account,Debit,Credit",
        ...byTx(truth).flatMap((tx) => {
          const total = money(tx.reduce((s, e) => s + Math.max(e.cents, 0), 0));
          return [
            ...tx.map((e, i) => line(["", i === 0 ? mdy(e.date) : "", i === 0 ? "Journal Entry" : "", i === 0 ? String(e.tx) : "", "", e.memo, e.accountName, debitOf(e, (c) => `$${money(c)}`), creditOf(e, (c) => `$${money(c)}`)])),
            line(["", "", "", "", "", "", "", `$${total}`, `$${total}`]),
            ",,,,,,,,",
          ];
        }),
        '"Accrual Basis Tuesday, January 9, 2024 10:15 AM GMT-08:00"',
      ].join("\n") + "\n",
  }),
  "QuickBooks Desktop Journal": (truth) => ({
    account: (e) => `${e.account} · ${e.accountName}`,
    transactions: true,
    degroup: true,
    content:
      [
        ",,Trans #,Type,Date,Num,Adj,Name,Memo,Account,Debit,Credit",
        ...byTx(truth).flatMap((tx) => {
          const total = money(tx.reduce((s, e) => s + Math.max(e.cents, 0), 0));
          return [
            ...tx.map((e, i) => line(["", "", i === 0 ? String(e.tx) : "", i === 0 ? "General Journal" : "", i === 0 ? mdy(e.date) : "", i === 0 ? e.txid : "", "", "", e.memo, `${e.account} · ${e.accountName}`, debitOf(e), creditOf(e)])),
            line(["", "", "", "", "", "", "", "", "", "", total, total]),
            ",,,,,,,,,,,",
          ];
        }),
      ].join("\r\n") + "\r\n",
  }),
  "QuickBooks Online Journal (2024 report view)": (truth) => ({
    // The account number column is the account; the full name its description.
    account: (e) => e.account,
    transactions: true,
    degroup: true,
    content:
      [
        "Journal",
        "Test Company",
        '"January 1-December 31, 2023"',
        "",
        "Transaction date,Transaction type,Num,Name,Memo/Description,Account #,Full name,Debit,Credit",
        ...byTx(truth).flatMap((tx) => {
          const total = money(tx.reduce((s, e) => s + Math.max(e.cents, 0), 0));
          return [
            ...tx.map((e, i) => line([i === 0 ? mdy(e.date) : "", i === 0 ? "Journal Entry" : "", i === 0 ? e.txid : "", "", e.memo, e.account, e.accountName, debitOf(e, (c) => `$${money(c)}`), creditOf(e, (c) => `$${money(c)}`)])),
            line([`Total for Journal Entry ${tx[0].txid}`, "", "", "", "", "", "", `$${total}`, `$${total}`]),
            "",
          ];
        }),
        '"Accrual basis Monday, January 8, 2024 09:00 AM GMT-08:00"',
      ].join("\n") + "\n",
  }),
  "QuickBooks Transaction Detail by Account": (truth) => ({
    account: (e) => e.accountName,
    transactions: false,
    degroup: true,
    content:
      [
        "Transaction Detail by Account",
        "Test Company",
        '"January - December 2023"',
        "",
        ",Date,Transaction Type,Num,Name,Memo/Description,Split,Amount,Balance",
        ...byAccount(truth).flatMap((entries) => {
          let balance = 0;
          return [
            line([entries[0].accountName, "", "", "", "", "", "", "", ""]),
            ...entries.map((e) => {
              balance += e.cents;
              return line(["", mdy(e.date), "Journal Entry", e.txid, "", e.memo, "-Split-", money(e.cents), money(balance)]);
            }),
            line([`Total for ${entries[0].accountName}`, "", "", "", "", "", "", `$${money(balance)}`, ""]),
          ];
        }),
        line(["TOTAL", "", "", "", "", "", "", "$0.00", ""]),
        "",
        '"Accrual basis Monday, February 5, 2024 09:12 AM GMT-08:00"',
      ].join("\n") + "\n",
  }),
  "Sage 50 General Ledger (M/d/yy)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: true,
    content:
      [
        "Test Company",
        "General Ledger",
        "For the Period From Jan 1, 2023 to Dec 31, 2023",
        "Filter Criteria includes: Report order is by ID. Report is printed in Detail Format.",
        "",
        "Account ID,Account Description,Date,Reference,Jrnl,Trans Description,Debit Amt,Credit Amt,Balance",
        ...byAccount(truth).flatMap((entries) => {
          const net = entries.reduce((s, e) => s + e.cents, 0);
          return [
            line([entries[0].account, entries[0].accountName, "1/1/23", "", "", "Beginning Balance", "", "", ""]),
            ...entries.map((e) => line(["", "", shortMdy(e.date), e.txid, "GENJ", e.memo, debitOf(e), creditOf(e), ""])),
            line(["", "", "", "", "", "Current Period Change", money(entries.reduce((s, e) => s + Math.max(e.cents, 0), 0)), money(-entries.reduce((s, e) => s + Math.min(e.cents, 0), 0)), money(net)]),
            line(["", "", "12/31/23", "", "", "Ending Balance", "", "", money(net)]),
          ];
        }),
      ].join("\r\n") + "\r\n",
  }),
  "Sage 50 General Journal (M/d/yy)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: true,
    content:
      [
        "Test Company",
        "General Journal",
        "For the Period From Jan 1, 2023 to Dec 31, 2023",
        "Filter Criteria includes: Report order is by Date. Report is printed in Detail Format.",
        "",
        "Date,Account ID,Reference,Trans Description,Debit Amt,Credit Amt",
        ...byTx(truth).flatMap((tx) => tx.map((e, i) => line([i === 0 ? shortMdy(e.date) : "", e.account, i === 0 ? e.txid : "", e.memo, debitOf(e), creditOf(e)]))),
        line(["", "", "", "Total", money(truth.reduce((s, e) => s + Math.max(e.cents, 0), 0)), money(truth.reduce((s, e) => s + Math.max(e.cents, 0), 0))]),
      ].join("\r\n") + "\r\n",
  }),
  "Sage 50 (UK) Nominal Activity (dd/MM/yyyy)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: true,
    content:
      [
        "Date: 31/12/2023,,Test Company Ltd,,,,,,,,,,Page: 1",
        "Time: 10:15:32,,Nominal Activity,,,,,,,,,,",
        "",
        "No,Type,Date,Account,Ref,Details,Dept,T/C,Value,Debit,Credit,V,B",
        ...byAccount(truth).flatMap((entries) => [
          line([`N/C: ${entries[0].account}`, `Name: ${entries[0].accountName}`, "", "", "", "", "", "", "", "", "", "", ""]),
          ...entries.map((e) => line([String(e.tx), "JD", dmy(e.date), "", e.txid, e.memo, "0", "T9", money(Math.abs(e.cents)), debitOf(e), creditOf(e), "-", "-"])),
          line(["", "", "", "", "", "", "Totals:", "", "", money(entries.reduce((s, e) => s + Math.max(e.cents, 0), 0)), money(-entries.reduce((s, e) => s + Math.min(e.cents, 0), 0)), "", ""]),
        ]),
      ].join("\r\n") + "\r\n",
  }),
  "Microsoft Dynamics GP General Posting Journal": (truth) => ({
    account: (e) => `000-${e.account}-00`,
    transactions: true,
    degroup: true,
    content:
      [
        "System: 12/31/2023 10:15:20 AM,,Test Company,,,,,Page: 1",
        "User Date: 12/31/2023,,GENERAL POSTING JOURNAL,,,,,User ID: sa",
        "",
        "Journal Entry,Transaction Date,Reference,Source Document,Account,Account Description,Debit,Credit",
        ...byTx(truth).flatMap((tx) => {
          const total = money(tx.reduce((s, e) => s + Math.max(e.cents, 0), 0));
          return [
            ...tx.map((e, i) => line([i === 0 ? String(1000 + e.tx) : "", i === 0 ? shortMdy(e.date).replace(/\/(\d\d)$/, "/20$1") : "", i === 0 ? e.memo : "", i === 0 ? "GJ" : "", `000-${e.account}-00`, e.accountName, debitOf(e), creditOf(e)])),
            line(["", "", "", "", "", "Total Distributions", total, total]),
          ];
        }),
      ].join("\r\n") + "\r\n",
  }),
};

/** Cells of a workbook rendering: strings, numbers and dates keep their types. */
export type Cell = string | number | Date | null;

export interface WorkbookRendering {
  account: (e: TruthEntry) => string;
  transactions: boolean;
  degroup: boolean;
  /** Sheets in order; the ledger is on `ledgerSheet`. */
  sheets: { name: string; rows: Cell[][] }[];
}

const utcDate = (iso: string) => new Date(`${iso}T00:00:00Z`);
const signedNumber = (cents: number) => cents / 100;

/** Workbook layouts: what packages write when exporting to Excel (typed dates and numbers). */
export const WORKBOOK_LAYOUTS: Record<string, (truth: TruthEntry[]) => WorkbookRendering> = {
  "ERP export workbook (typed dates and amounts)": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: false,
    sheets: [
      {
        name: "General Ledger",
        rows: [
          ["Journal ID", "Effective Date", "Account", "Account Description", "Debit", "Credit", "Memo"],
          ...truth.map((e): Cell[] => [e.txid, utcDate(e.date), Number(e.account), e.accountName, e.cents > 0 ? signedNumber(e.cents) : null, e.cents < 0 ? signedNumber(-e.cents) : null, e.memo]),
        ],
      },
    ],
  }),
  "QuickBooks Online Journal exported to Excel": (truth) => ({
    account: (e) => e.accountName,
    transactions: true,
    degroup: true,
    sheets: [
      {
        name: "Journal",
        rows: [
          ["Journal"],
          ["Test Company"],
          ["January 1 - December 31, 2023"],
          [],
          [null, "Date", "Transaction Type", "Num", "Name", "Memo/Description", "Account", "Debit", "Credit"],
          ...byTx(truth).flatMap((tx): Cell[][] => {
            const total = signedNumber(tx.reduce((s, e) => s + Math.max(e.cents, 0), 0));
            return [
              ...tx.map((e, i): Cell[] => [null, i === 0 ? utcDate(e.date) : null, i === 0 ? "Journal Entry" : null, i === 0 ? e.tx : null, null, e.memo, e.accountName, e.cents > 0 ? signedNumber(e.cents) : null, e.cents < 0 ? signedNumber(-e.cents) : null]),
              [null, null, null, null, null, null, null, total, total],
              [],
            ];
          }),
          [null, "Accrual Basis Tuesday, January 9, 2024 10:15 AM GMT-08:00"],
        ],
      },
    ],
  }),
  "Sage 50 General Ledger exported to Excel, after a cover sheet": (truth) => ({
    account: (e) => e.account,
    transactions: true,
    degroup: true,
    sheets: [
      { name: "Report Info", rows: [["Test Company"], ["General Ledger"], ["Printed 1/9/24"]] },
      {
        name: "General Ledger",
        rows: [
          ["Account ID", "Account Description", "Date", "Reference", "Jrnl", "Trans Description", "Debit Amt", "Credit Amt", "Balance"],
          ...byAccount(truth).flatMap((entries): Cell[][] => [
            [entries[0].account, entries[0].accountName, utcDate("2023-01-01"), null, null, "Beginning Balance", null, null, 0],
            ...entries.map((e): Cell[] => [null, null, utcDate(e.date), e.txid, "GENJ", e.memo, e.cents > 0 ? signedNumber(e.cents) : null, e.cents < 0 ? signedNumber(-e.cents) : null, null]),
            [null, null, null, null, null, "Current Period Change", null, null, signedNumber(entries.reduce((s, e) => s + e.cents, 0))],
          ]),
        ],
      },
    ],
  }),
};
