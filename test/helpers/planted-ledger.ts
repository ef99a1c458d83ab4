/**
 * A general ledger for 2023 whose background trips no control point, with anomalies planted for
 * each control point (docs/control-points.md). Account descriptions are MAC group descriptions,
 * so the account mappings are inferred and only need verifying.
 *
 * Background: 2-line transactions on weekdays between the 6th and the 24th, entered the day they
 * are effective, amounts log-uniform between 100.00 and 10,000.00 (so they follow Benford's law and
 * no amount is unusual for its account), one user and one transaction type per kind of posting,
 * plain memos, ids JE000001... without gaps (one planted).
 */

export const ACCOUNTS: Record<string, string> = {
  "1000": "Cash at bank",
  "1100": "Trade receivables",
  "1500": "Plant and machinery",
  "2000": "Trade payables",
  "2100": "Wages and salaries payable",
  "3000": "Retained earnings",
  "4000": "Product sales",
  "5000": "Materials",
  "5100": "Salaries and wages",
  "5200": "Rent",
  "5300": "Bad debt expense",
  "5400": "Office supplies",
};

export interface Line {
  account: string;
  /** Fund ledgers: the line's fund. */
  fund?: string;
  /** MONEY_100, positive debit, negative credit. */
  amount: number;
  memo?: string;
}

export interface Tx {
  txid?: string;
  date: string;
  entered?: string;
  type: string;
  user: string;
  memo: string;
  lines: Line[];
}

export function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(2, "0");
const iso = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;
const isWeekday = (date: string) => ![0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());

export function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** Writes transactions as the CSV the tests upload (US dates, debit/credit columns). */
export function ledgerCsv(transactions: readonly Tx[], options: { fund?: string } = {}): string {
  const us = (date: string) => `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;
  const quote = (text: string) => (/[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const funds = options.fund !== undefined;
  let out = `Journal ID,Effective Date,Entry Date,Account,Account Description,Debit,Credit,Memo,Source,Entered By${funds ? ",Fund" : ""}\n`;
  for (const tx of transactions) {
    for (const line of tx.lines) {
      const debit = line.amount > 0 ? money(line.amount) : line.amount === 0 ? "0.00" : "";
      const credit = line.amount < 0 ? money(-line.amount) : "";
      const fields = [tx.txid!, us(tx.date), us(tx.entered ?? tx.date), line.account, quote(ACCOUNTS[line.account] ?? line.account), debit, credit, quote(line.memo ?? tx.memo), tx.type, tx.user];
      if (funds) fields.push(line.fund ?? options.fund!);
      out += fields.join(",") + "\n";
    }
  }
  return out;
}

/** Background postings of one year. */
export function background(seed = 7, perMonth = { sales: 25, collections: 20, purchases: 20, payroll: 4, supplies: 12 }): Tx[] {
  const rand = rng(seed);
  const amount = () => {
    for (;;) {
      const cents = Math.round(Math.exp(Math.log(10_000) + rand() * (Math.log(1_000_000) - Math.log(10_000))));
      const text = String(cents);
      // No background amount starts with 47 (the planted Benford excess), none is round.
      if (!text.startsWith("47") && cents % 100 !== 0) return cents;
    }
  };
  const day = (month: number) => {
    for (;;) {
      const date = iso(2023, month, 6 + Math.floor(rand() * 19));
      if (isWeekday(date)) return date;
    }
  };
  const out: Tx[] = [];
  const kinds: Array<[keyof typeof perMonth, string, string, string, string, string]> = [
    ["sales", "1100", "4000", "AR", "ar_clerk", "Invoice"],
    ["collections", "1000", "1100", "CR", "ar_clerk", "Receipt"],
    ["purchases", "5000", "2000", "AP", "ap_clerk", "Purchase order"],
    ["payroll", "5100", "2100", "PR", "payroll", "Payroll run"],
    ["supplies", "5400", "2000", "AP", "ap_clerk", "Supplier bill"],
  ];
  for (let month = 1; month <= 12; month++) {
    for (const [kind, debit, credit, type, user, memo] of kinds) {
      for (let i = 0; i < perMonth[kind]; i++) {
        const a = amount();
        out.push({ date: day(month), type, user, memo: `${memo} ${1000 + Math.floor(rand() * 9000)}`, lines: [{ account: debit, amount: a }, { account: credit, amount: -a }] });
      }
    }
    if (month === 8) continue; // the planted surge is August's rent
    const rent = amount();
    out.push({ date: day(month), type: "AP", user: "ap_clerk", memo: `Rent ${month}`, lines: [{ account: "5200", amount: rent }, { account: "2000", amount: -rent }] });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

const simple = (debit: string, credit: string, amount: number, tx: Omit<Tx, "lines">): Tx => ({ ...tx, lines: [{ account: debit, amount }, { account: credit, amount: -amount }] });
const base = { type: "AP", user: "ap_clerk", memo: "Supplier bill 4242" };

/**
 * Planted anomalies, by the control point each must trip (the planted transaction may trip others
 * too). Keys are control point names; values the planted transactions.
 */
export function plants(): Record<string, Tx[]> {
  const rand = rng(99);
  const benford = Array.from({ length: 60 }, (_, i) =>
    simple("5400", "2000", 470_000 + Math.floor(rand() * 9_999) + (i % 2 === 0 ? 1 : 3), { ...base, date: iso(2023, 1 + (i % 12), 10 + (i % 5)), memo: `Supplier bill ${7000 + i}` }),
  );
  // August's rent posted 15 times on Saturdays, against retained earnings (no background there).
  const surge = Array.from({ length: 15 }, (_, i) => simple("5200", "3000", 150_000 + i * 101 + 7, { ...base, date: ["2023-08-05", "2023-08-12", "2023-08-19"][i % 3], memo: `Rent extra ${i}` }));
  // Large amounts go between accounts without background activity (they would break the monthly
  // trends of busy accounts); the unusual amount is one cent on a busy account (far below its usual).
  const machine = simple("1500", "3000", 250_000_011, { ...base, date: "2023-09-13", memo: "Machine contributed by owner 19" });
  const cent = simple("5000", "2000", 1, { ...base, date: "2023-10-17", memo: "Purchase order 7124" });
  return {
    journal_entry_weekend_post: [simple("5400", "2000", 123_456, { ...base, date: "2023-03-18" })],
    journal_entry_last_3_digits: [simple("5400", "2000", 500_000, { ...base, date: "2023-04-12" })],
    journal_entry_complex_structure_v2: [
      {
        ...base,
        date: "2023-04-13",
        lines: [
          { account: "5000", amount: 31_113 },
          { account: "5400", amount: 22_227 },
          { account: "2000", amount: -40_001 },
          { account: "2100", amount: -13_339 },
        ],
      },
    ],
    prior_period_frequency: surge,
    journal_entry_manual_entry: [simple("5400", "2000", 33_341, { ...base, type: "Manual", date: "2023-05-09" })],
    journal_entry_is_reversal_of: [simple("1000", "5400", 77_777, { ...base, date: "2023-05-16", memo: "Supplier bill 7777 back" })],
    journal_entry_is_reversed_by: [simple("5400", "1000", 77_777, { ...base, date: "2023-05-10", memo: "Supplier bill 7777" })],
    journal_entry_zero: [
      {
        ...base,
        date: "2023-06-14",
        lines: [
          { account: "5400", amount: 12_345 },
          { account: "5000", amount: 0 },
          { account: "2000", amount: -12_345 },
        ],
      },
    ],
    journal_entry_flat_gifi_bucket_rarity: [simple("1500", "4000", 88_811, { ...base, date: "2023-06-15" })],
    journal_entry_reporting_analysis_period_adjustment: [simple("5400", "2000", 64_321, { ...base, date: "2023-12-20", entered: "2024-01-16" })],
    journal_entry_reporting_adjustment: [simple("5400", "2000", 54_329, { ...base, date: "2023-07-12", entered: "2023-08-25" })],
    journal_entry_flat_sos_v2: benford,
    journal_entry_two_digit_benford_v2: benford,
    journal_entry_unbalanced_transaction: [{ ...base, date: "2023-07-13", lines: [{ account: "5400", amount: 10_001 }, { account: "2000", amount: -9_001 }] }],
    journal_entry_cash_out_the_door: [simple("2000", "1000", 45_671, { ...base, date: "2023-07-18", memo: "Payment 311" })],
    journal_entry_cash_to_bad_debt: [simple("5300", "1000", 23_457, { ...base, date: "2023-07-19", memo: "Write-down 12" })],
    journal_entry_flat_expert_flow_v2: [simple("4000", "1000", 34_567, { ...base, date: "2023-07-20", memo: "Sales refund 77" })],
    journal_entry_start_of_period: [simple("5400", "2000", 21_113, { ...base, date: "2023-06-01" })],
    journal_entry_end_of_period: [simple("5400", "2000", 21_117, { ...base, date: "2023-06-29" })],
    journal_entry_start_of_year: [simple("5400", "2000", 21_119, { ...base, date: "2023-01-04" })],
    journal_entry_end_of_year: [simple("5400", "2000", 21_121, { ...base, date: "2023-12-28" })],
    journal_entry_high_dollar_value: [machine],
    journal_entry_material_value: [machine],
    journal_entry_suspicious_keyword: [simple("5400", "2000", 18_881, { ...base, date: "2023-09-14", memo: "Bonus per CEO request" })],
    journal_entry_complex_instrument: [simple("5400", "2000", 18_883, { ...base, date: "2023-09-19", memo: "Interest rate swap settlement" })],
    markov_chain: [simple("5000", "4000", 18_887, { ...base, date: "2023-09-20", memo: "Materials against sales 3" })],
    journal_entry_empty_text_field: [simple("5400", "2000", 18_889, { ...base, date: "2023-10-10", memo: "" })],
    journal_entry_isolation_forest: [simple("5000", "2000", 18_893, { ...base, user: "intruder", date: "2023-10-15", memo: "Purchase order 7123" })],
    journal_entry_flat_unusual_amount_v4: [cent],
    journal_entry_flow_analysis: [cent],
    journal_entry_duplicate_v2: [simple("5400", "2000", 17_771, { ...base, date: "2023-10-18" }), simple("5400", "2000", 17_771, { ...base, date: "2023-10-18", memo: "Supplier bill 4243" })],
    group_by_trendshock: surge,
    prior_period_dollar_change: surge,
    prior_period_overall_score_change: surge,
  };
}

/**
 * The background and the plants in date order with ids JE000001..., one number (after the
 * background's 300th transaction) left out: the transactions on both sides of it trip the
 * sequence gap test. Returns the CSV and the txids of each plant.
 */
export function plantedLedger(seed = 7) {
  const planted = plants();
  const unique = [...new Set(Object.values(planted).flat())];
  const all = [...background(seed), ...unique].sort((a, b) => a.date.localeCompare(b.date));
  let number = 0;
  const gap: string[] = [];
  for (const [i, tx] of all.entries()) {
    number++;
    if (i === 300) {
      number++;
      gap.push(all[i - 1].txid!);
    }
    tx.txid = `JE${String(number).padStart(6, "0")}`;
    if (i === 300) gap.push(tx.txid);
  }
  const txids: Record<string, string[]> = Object.fromEntries(Object.entries(planted).map(([name, txs]) => [name, txs.map((t) => t.txid!)]));
  txids.journal_entry_gap_edge = gap;
  const plantedTxids = new Set(Object.values(txids).flat());
  return { csv: ledgerCsv(all), txids, plantedTxids, transactions: all };
}
