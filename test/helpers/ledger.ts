/**
 * A balanced general ledger journal of `lines` lines (two per journal entry) over 2023, shaped like
 * an ERP export: entry number, date, account, description, debit, credit. Deterministic.
 */
export function journalCsv(lines: number): string {
  const accounts = ["10100", "20100", "40100", "60100", "61000", "70200"];
  const out = ["JE Number,Posting Date,Account,Description,Debit,Credit"];
  for (let i = 0; i < lines / 2; i++) {
    const day = new Date(Date.UTC(2023, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
    const amount = `${100 + ((i * 37) % 9000)}.${String((i * 7) % 100).padStart(2, "0")}`;
    const debitAccount = accounts[i % accounts.length];
    const creditAccount = accounts[(i + 1) % accounts.length];
    out.push(`JE${1000 + i},${day},${debitAccount},Entry ${i} debit,${amount},`);
    out.push(`JE${1000 + i},${day},${creditAccount},Entry ${i} credit,,${amount}`);
  }
  return out.join("\n") + "\n";
}
