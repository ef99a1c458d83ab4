import { rng } from "./planted-ledger.js";

/**
 * Payables or receivables detail for 2023 whose background trips no control point, with an
 * anomaly planted per control point. Background: invoices (positive amounts) of parties P01..P12
 * between October and mid-December (so none is old and unpaid at the year end), on days 6 to 24,
 * amounts log-uniform between 100.00 and 10,000.00, invoice numbers rising with the dates per
 * party, plain memos. Payments (negative amounts) appear only in plants.
 */
export interface DetailRow {
  invoiceId: string;
  party: string;
  partyName?: string;
  type: string;
  invoiceDate: string;
  date: string;
  amount: number;
  memo: string;
  user?: string;
}

const pad = (n: number) => String(n).padStart(2, "0");

export function detailCsv(side: "AP" | "AR", rows: readonly DetailRow[]): string {
  const party = side === "AP" ? "Vendor" : "Customer";
  const us = (date: string) => `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;
  const quote = (text: string) => (/[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  let out = `Invoice ID,${party} ID,${party} Name,Entry Type,Invoice Date,Effective Date,Amount,Memo,Entered By\n`;
  for (const r of rows) {
    out += [r.invoiceId, r.party, quote(r.partyName ?? `${party} ${r.party}`), quote(r.type), us(r.invoiceDate), us(r.date), (r.amount / 100).toFixed(2), quote(r.memo), r.user ?? "clerk"].join(",") + "\n";
  }
  return out;
}

export function partyListCsv(side: "AP" | "AR", parties: readonly string[]): string {
  const party = side === "AP" ? "Vendor" : "Customer";
  return `${party} ID,${party} Name\n${parties.map((p) => `${p},${party} ${p}`).join("\n")}\n`;
}

export const PARTIES = Array.from({ length: 12 }, (_, i) => `P${pad(i + 1)}`);

export function subledger(side: "AP" | "AR", seed = 5) {
  const rand = rng(seed);
  const amount = () => {
    for (;;) {
      const cents = Math.round(Math.exp(Math.log(10_000) + rand() * Math.log(100)));
      if (!String(cents).startsWith("47") && cents % 100 !== 0) return cents;
    }
  };
  const rows: DetailRow[] = [];
  // Invoice ids are numbered per party in invoice date order at the end (unless a plant sets one).
  const invoice = (party: string, date: string, extra: Partial<DetailRow> = {}): DetailRow => ({ invoiceId: "", party, type: "Invoice", invoiceDate: date, date, amount: amount(), memo: `Goods ${Math.floor(rand() * 9000) + 1000}`, ...extra });
  // Background: 12 parties with none, one or two invoices a day, October to mid-December.
  const days: string[] = [];
  for (const month of [10, 11, 12]) for (let d = 6; d <= (month === 12 ? 20 : 24); d++) days.push(`2023-${pad(month)}-${pad(d)}`);
  for (const day of days) for (const party of PARTIES) for (let k = rand() < 0.35 ? 0 : rand() < 0.7 ? 1 : 2; k > 0; k--) rows.push(invoice(party, day));

  const plants: Record<string, DetailRow[]> = {};
  const plant = (key: string, ...planted: DetailRow[]) => {
    plants[key] = [...(plants[key] ?? []), ...planted];
    rows.push(...planted);
  };
  const benford = Array.from({ length: 40 }, (_, i) => invoice("P01", days[(i * 3) % days.length], { amount: 470_000 + i * 37 + 1, memo: `Goods batch ${i}` }));
  plant("two_digit_benford", ...benford);
  plant("activity_flurry", ...Array.from({ length: 8 }, (_, i) => invoice("P02", "2023-11-27", { memo: `Rush order ${i}` })));
  const payment = (party: string, date: string, cents: number): DetailRow => ({ invoiceId: `PAY-${party}-${date}`, party, type: "Payment", invoiceDate: date, date, amount: -cents, memo: "Settlement" });
  plant("cash_expenditure", payment("P03", "2023-11-16", 10_001));
  if (side === "AP") plant("vendor_debit_balance", payment("P13", "2023-11-17", 50_003));
  const dup = invoice("P04", "2023-11-20", { memo: "Goods twice", invoiceId: "P04-DUP-1" });
  plant("duplicate_document", dup, { ...dup });
  plant("empty_text_field", invoice("P05", "2023-11-21", { memo: "" }));
  plant("end_of_analysis_period", invoice("P05", "2023-12-29"));
  plant("end_of_reporting_period", invoice("P05", "2023-11-29"));
  plant("high_monetary_value", invoice("P06", "2023-11-22", { amount: 90_000_001 }));
  plant("invoice_created_after_effective_date", invoice("P06", "2023-11-08", { invoiceDate: "2023-12-08" }));
  plant(side === "AP" ? "invoice_from_related_party" : "invoice_to_related_party", invoice("REL", "2023-11-09", { partyName: "Owner Holdings" }));
  // Numbered below the party's earlier invoices.
  plant("invoice_out_of_order", { ...invoice("P07", "2023-12-19"), invoiceId: "P07-050" });
  plant("last_3_digits", invoice("P08", "2023-11-10", { amount: 200_000 }));
  plant("manual_entry", invoice("P08", "2023-11-13", { type: "Manual invoice" }));
  plant("memo_with_different_period", invoice("P09", "2023-11-14", { memo: "Services for March 2023" }));
  plant("old_unpaid_invoice", invoice("P09", "2023-03-15", { invoiceId: "P09-001" }));
  plant("suspicious_keyword", invoice("P10", "2023-11-16", { memo: "Bonus per CEO request" }));
  plant(side === "AP" ? "unusual_amount_by_vendor" : "unusual_amount_by_customer", invoice("P11", "2023-11-17", { amount: 5 }));
  plant(side === "AP" ? "vendor_not_in_vendor_list" : "customer_not_in_customer_list", invoice("NEW", "2023-11-20"));
  rows.sort((a, b) => a.invoiceDate.localeCompare(b.invoiceDate));
  const next = new Map<string, number>();
  for (const row of rows) {
    if (row.invoiceId) continue;
    const n = (next.get(row.party) ?? 100) + 1;
    next.set(row.party, n);
    row.invoiceId = `${row.party}-${n}`;
  }
  const planted = new Set(Object.values(plants).flat());
  return { csv: detailCsv(side, rows), plants, planted, rows };
}
