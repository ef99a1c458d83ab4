import { createWriteStream } from "node:fs";
import { once } from "node:events";

/**
 * Writes a general-ledger CSV of `lines` entry lines shaped like an ERP export: balanced
 * transactions of 2-6 lines, US dates, thousands separators on large amounts (so those fields are
 * quoted), memos with commas and quotes. Deterministic (fixed-seed PRNG) so runs compare.
 */
export async function writeGeneralLedgerCsv(path: string, lines: number, seed = 42): Promise<{ bytes: number; transactions: number }> {
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const accounts = Array.from({ length: 400 }, (_, i) => [String(10000 + i * 25), `Account ${i} ${["Cash", "Receivables", "Inventory", "Payables", "Revenue", "Expenses"][i % 6]}`]);
  const users = ["jsmith", "mdupont", "kmueller", "lgarcia", "apatel"];
  const sources = ["GJ", "AP", "AR", "CD", "CR", "PR"];
  const memos = ["Monthly accrual", "Invoice 4471, freight", 'Payment "urgent"', "Reclass per review", "Depreciation", "Payroll run"];
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let bytes = 0;
  let buffer = "Journal ID,Line,Effective Date,Entry Date,Account,Account Description,Debit,Credit,Memo,Source,Entered By,Approved By,Currency\n";
  const money = (cents: number) => {
    const s = (cents / 100).toFixed(2);
    return cents >= 100000 ? `"${s.replace(/\B(?=(\d{3})+\.)/g, ",")}"` : s;
  };
  let written = 0;
  let tx = 0;
  while (written < lines) {
    tx++;
    const count = Math.min(lines - written, 2 + Math.floor(rand() * 5));
    const day = 1 + Math.floor(rand() * 365);
    const date = new Date(Date.UTC(2023, 0, day));
    const eff = `${String(date.getUTCMonth() + 1).padStart(2, "0")}/${String(date.getUTCDate()).padStart(2, "0")}/${date.getUTCFullYear()}`;
    const entryDate = new Date(date.getTime() + Math.floor(rand() * 5) * 86400000);
    const ent = `${String(entryDate.getUTCMonth() + 1).padStart(2, "0")}/${String(entryDate.getUTCDate()).padStart(2, "0")}/${entryDate.getUTCFullYear()}`;
    const amounts: number[] = [];
    let sum = 0;
    for (let i = 0; i < count - 1; i++) {
      const a = Math.floor(rand() * 2_000_000) * (rand() < 0.5 ? 1 : -1) || 1;
      amounts.push(a);
      sum += a;
    }
    amounts.push(-sum);
    const memo = memos[Math.floor(rand() * memos.length)];
    const memoField = /[",]/.test(memo) ? `"${memo.replace(/"/g, '""')}"` : memo;
    const source = sources[tx % sources.length];
    const user = users[tx % users.length];
    const approver = users[(tx + 1) % users.length];
    for (let i = 0; i < count; i++) {
      const [acct, desc] = accounts[Math.floor(rand() * accounts.length)];
      const a = amounts[i];
      buffer += `JE${String(tx).padStart(7, "0")},${i + 1},${eff},${ent},${acct},${desc},${a > 0 ? money(a) : ""},${a < 0 ? money(-a) : ""},${memoField},${source},${user},${approver},USD\n`;
    }
    written += count;
    if (buffer.length > 1 << 20) {
      bytes += Buffer.byteLength(buffer);
      if (!out.write(buffer)) await once(out, "drain");
      buffer = "";
    }
  }
  bytes += Buffer.byteLength(buffer);
  out.end(buffer);
  await once(out, "finish");
  return { bytes, transactions: tx };
}
