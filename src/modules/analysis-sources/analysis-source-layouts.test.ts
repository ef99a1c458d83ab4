import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analysisFixture, createSource, settle, uploadFile, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { generateTruth, TEXT_LAYOUTS, WORKBOOK_LAYOUTS, type TruthEntry } from "../../../test/ingestion/layouts.js";
import { xlsOf, xlsxOf } from "../../../test/ingestion/workbooks.js";

/**
 * Correctness stays exact (issue 15 points 7 and 8): one generated ledger is written in the layout
 * of every supported package and language (flat and grouped text exports, .xlsx and .xls
 * workbooks), uploaded, ingested to COMPLETED through REST with the recommendations (and the
 * degrouper where the layout is grouped), and every stored entry is compared with the generator's
 * truth: its account, signed amount in cents and effective date, and that entries share a stored
 * transaction id exactly when they share a true transaction.
 */
let server: TestServer;
let fixture: SourceFixture;
const truth = generateTruth();

beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "Layouts");
});
afterAll(async () => server?.close());

async function ingestFile(name: string, content: string | Buffer, degroup: boolean) {
  const fileId = await uploadFile(server, fixture.engagementId, name, content);
  const { source } = await settle(server, (await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED", applyDegrouper: degroup })).id);
  expect(source.errors, JSON.stringify(source.errors)).toEqual([]);
  expect(source.workflowState).toBe("COMPLETED");
  const tables = await server.api.post("/data-tables/query", { $and: [{ analysisSourceId: source.id }, { logicalName: "gl_journal_lines" }] });
  const data = await server.api.post(`/data-tables/${tables.body.content[0].id}/data`, { pageSize: 2000 });
  expect(data.status, JSON.stringify(data.body)).toBe(200);
  return { source, rows: data.body.content as Array<{ txid?: string; account?: string; amount?: number; effective_date?: string }> };
}

/**
 * The stored transactions (gl_journal_tx) against their stored entries: one per txid with the
 * entries' count, debit and credit totals and first and last effective date, whichever way the
 * table was built (summed while staging, or grouped in SQL).
 */
async function expectTransactionsOfEntries(source: { id: string }, rows: Awaited<ReturnType<typeof ingestFile>>["rows"]) {
  const tables = await server.api.post("/data-tables/query", { $and: [{ analysisSourceId: source.id }, { logicalName: "gl_journal_tx" }] });
  const data = await server.api.post(`/data-tables/${tables.body.content[0].id}/data`, { pageSize: 2000 });
  expect(data.status, JSON.stringify(data.body)).toBe(200);
  const expected = new Map<string, { entry_count: number; debit_total: number; credit_total: number; effective_date: string; last_effective_date: string }>();
  for (const row of rows) {
    const t = expected.get(row.txid!) ?? { entry_count: 0, debit_total: 0, credit_total: 0, effective_date: row.effective_date!, last_effective_date: row.effective_date! };
    t.entry_count++;
    if (row.amount! > 0) t.debit_total += row.amount!;
    else t.credit_total -= row.amount!;
    if (row.effective_date! < t.effective_date) t.effective_date = row.effective_date!;
    if (row.effective_date! > t.last_effective_date) t.last_effective_date = row.effective_date!;
    expected.set(row.txid!, t);
  }
  const stored = data.body.content as Array<Record<string, unknown>>;
  expect(stored).toHaveLength(expected.size);
  for (const t of stored) {
    expect({ entry_count: Number(t.entry_count), debit_total: Number(t.debit_total), credit_total: Number(t.credit_total), effective_date: t.effective_date, last_effective_date: t.last_effective_date }, String(t.txid)).toEqual(expected.get(String(t.txid)));
  }
}

/** Every stored entry against the truth (matched by its amount, which is unique in the ledger). */
function expectExactEntries(rows: Awaited<ReturnType<typeof ingestFile>>["rows"], account: (e: TruthEntry) => string, transactions: boolean) {
  const byCents = new Map(truth.map((e) => [e.cents, e]));
  const matched = new Set<number>();
  const txOf = new Map<string, number>();
  for (const row of rows) {
    const entry = byCents.get(row.amount!);
    expect(entry, `a stored entry of ${row.amount} cents that the ledger does not have: ${JSON.stringify(row)}`).toBeDefined();
    expect(matched.has(entry!.cents), `${row.amount} stored twice`).toBe(false);
    matched.add(entry!.cents);
    expect({ account: row.account, effective_date: row.effective_date }).toEqual({ account: account(entry!), effective_date: entry!.date });
    if (transactions) {
      expect(row.txid, JSON.stringify(row)).toBeTruthy();
      const known = txOf.get(row.txid!);
      if (known === undefined) txOf.set(row.txid!, entry!.tx);
      else expect(known, `transaction id ${row.txid} spans two transactions`).toBe(entry!.tx);
    }
  }
  expect(matched.size).toBe(truth.length);
  expect(rows).toHaveLength(truth.length);
  if (transactions) {
    // One stored id per true transaction, and no true transaction split over two ids.
    expect(txOf.size).toBe(new Set(truth.map((e) => e.tx)).size);
    expect(new Set(txOf.values()).size).toBe(txOf.size);
  }
}

describe("every stored entry equals the generator's truth", () => {
  it.each(Object.entries(TEXT_LAYOUTS))("%s", async (name, render) => {
    const rendering = render(truth);
    const { source, rows } = await ingestFile("ledger.csv", rendering.content, rendering.degroup);
    expect(source.degrouperApplied).toBe(rendering.degroup);
    expectExactEntries(rows, rendering.account, rendering.transactions);
    if (rendering.transactions) await expectTransactionsOfEntries(source, rows);
  });

  it.each(Object.entries(WORKBOOK_LAYOUTS))("%s (.xlsx)", async (name, render) => {
    const rendering = render(truth);
    const { source, rows } = await ingestFile("ledger.xlsx", await xlsxOf(rendering.sheets), rendering.degroup);
    expect(source.degrouperApplied).toBe(rendering.degroup);
    expectExactEntries(rows, rendering.account, rendering.transactions);
  });

  it("ERP export workbook as a legacy .xls", async () => {
    const rendering = WORKBOOK_LAYOUTS["ERP export workbook (typed dates and amounts)"](truth);
    const { rows } = await ingestFile("ledger.xls", await xlsOf(rendering.sheets), false);
    expectExactEntries(rows, rendering.account, rendering.transactions);
  });
});
