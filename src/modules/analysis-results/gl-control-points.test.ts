import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis, updateConfiguration } from "../../../test/helpers/analysis-run.js";
import { awaitJob } from "../../../test/helpers/entities.js";
import { plantedLedger } from "../../../test/helpers/planted-ledger.js";
import { GL_CONTROL_POINTS } from "../../engine/index.js";

/**
 * The 36 general ledger control points on a ledger whose background trips none of them, with an
 * anomaly planted for each (test/helpers/planted-ledger.ts): every plant is flagged by its control
 * point in gl_journal_tx, and no background transaction is flagged by any.
 */
let server: TestServer;
let ledger: ReturnType<typeof plantedLedger>;
let resultId: string;
let transactions: Array<Record<string, any>>;

beforeAll(async () => {
  server = await startTestServer();
  ledger = plantedLedger();
  const analysis = await ledgerAnalysis(server, "Planted", ledger.csv);
  await updateConfiguration(server, analysis.analysisId, () => ({
    configuration: {
      controlPointSettings: {
        journal_entry_high_dollar_value: { threshold: 200_000_000 },
        journal_entry_material_value: { materiality: 100_000_000 },
      },
    },
  }));
  const run = await runAnalysis(server, analysis.analysisId);
  resultId = run.result.id;
  transactions = await allRows(server, (await resultTable(server, resultId, "gl_journal_tx")).id);
}, 120_000);
afterAll(async () => server?.close());

describe("general ledger control points on planted anomalies", () => {
  it("flags every planted anomaly with its control point", () => {
    const byTxid = new Map(transactions.map((t) => [t.txid, t]));
    const missed: string[] = [];
    for (const [point, txids] of Object.entries(ledger.txids)) {
      for (const txid of txids) {
        const tx = byTxid.get(txid)!;
        expect(tx, txid).toBeDefined();
        if (!tx[`cp_failed_${point}`]) missed.push(`${point} ${txid} score ${tx[`cp_score_${point}`]}`);
      }
    }
    expect(missed).toEqual([]);
    const covered = new Set(Object.keys(ledger.txids));
    const forProfit = GL_CONTROL_POINTS.map((p) => p.name).filter((n) => n !== "journal_entry_nfp_expense_flurry");
    expect(forProfit.filter((n) => !covered.has(n))).toEqual([]);
  });

  it("flags no background transaction", () => {
    const flagged: string[] = [];
    for (const tx of transactions) {
      if (ledger.plantedTxids.has(tx.txid)) continue;
      for (const [key, value] of Object.entries(tx)) if (key.startsWith("cp_failed_") && value === true) flagged.push(`${tx.txid} ${key}`);
    }
    expect(flagged).toEqual([]);
  });
});

/** The real export's transaction columns (control-points.md, last section), in order. */
const REAL_TX_COLUMNS = [
  "txid", "effective_date", "debit", "credit", "entries_count", "monetary_value", "transaction", "accounts", "entered_date", "type", "user_id", "risk",
  ...GL_CONTROL_POINTS.map((p) => `cp_failed_${p.name}`),
  "unknown_flow",
  ...GL_CONTROL_POINTS.map((p) => `cp_score_${p.name}`),
  "bs_delta", "is_delta",
  ...["expense", "asset", "ar", "liabilities", "income", "cash", "inventory", "ebitda", "contra", "ap"].map((t) => `account_tags_increasing_${t}`),
  ...["expense", "asset", "ar", "liabilities", "income", "cash", "inventory", "ebitda", "contra", "ap"].map((t) => `account_tags_decreasing_${t}`),
  "account_hierarchy_codes",
];

async function exportCsv(dataTableId: string, body: Record<string, unknown>): Promise<string> {
  const started = await server.api.post(`/data-tables/${dataTableId}/export`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const done = await awaitJob(server.api, started.body.id, 60_000);
  expect(done.status, done.error).toBe("COMPLETE");
  const file = await server.api.get(`/file-results/${done.entityId}/export`);
  expect(file.status).toBe(200);
  return file.body as string;
}

describe("result data tables", () => {
  it("exports gl_journal_tx with exactly the real columns, in order, lists written 'a';'b'", async () => {
    const table = await resultTable(server, resultId, "gl_journal_tx");
    const csv = await exportCsv(table.id, { query: { txid: ledger.txids.journal_entry_complex_structure_v2[0] } });
    const [header, row] = csv.trim().split("\r\n");
    expect(header.split(",")).toEqual(REAL_TX_COLUMNS);
    const values = row.split(",");
    expect(values[REAL_TX_COLUMNS.indexOf("accounts")]).toBe("'2000';'2100';'5000';'5400'");
    expect(values[REAL_TX_COLUMNS.indexOf("account_hierarchy_codes")]).toMatch(/^'2';'2\.1';'2\.1\.1';'2\.1\.1\.1';.*'5\.2\.4\.1'$/);
    expect(values[REAL_TX_COLUMNS.indexOf("cp_failed_journal_entry_complex_structure_v2")]).toBe("true");
  });

  it("balance sheet and income statement deltas are opposite; account tag effects follow the debit and credit sides", () => {
    const [sale] = transactions.filter((t) => t.accounts.join() === "1100,4000" && !ledger.plantedTxids.has(t.txid));
    expect(sale.bs_delta).toBe(sale.debit);
    expect(sale.is_delta).toBe(-sale.debit);
    expect(sale).toMatchObject({ account_tags_increasing_ar: true, account_tags_increasing_asset: true, account_tags_increasing_income: true, account_tags_decreasing_income: false, account_tags_increasing_expense: false });
    const [refund] = transactions.filter((t) => t.txid === ledger.txids.journal_entry_flat_expert_flow_v2[0]);
    expect(refund).toMatchObject({ account_tags_decreasing_income: true, account_tags_decreasing_cash: true, account_tags_decreasing_asset: true });
  });

  it("filters entries and transactions by risk level, control point (flags and columns), accounts and hierarchy codes", async () => {
    const lines = await resultTable(server, resultId, "gl_journal_lines");
    const weekend = ledger.txids.journal_entry_weekend_post[0];
    const byFlags = await allRows(server, lines.id, { cp_failed: { $flags: { journal_entry_weekend_post: true } } });
    const byColumn = await allRows(server, lines.id, { cp_failed_journal_entry_weekend_post: true });
    expect(byFlags.map((r) => r.rowid)).toEqual(byColumn.map((r) => r.rowid));
    expect(byFlags.map((r) => r.txid)).toContain(weekend);
    expect(byFlags.every((r) => r.cp_failed_journal_entry_weekend_post === true && !("cp_failed" in r))).toBe(true);
    const notWeekend = await allRows(server, lines.id, { $and: [{ cp_failed: { $flags: { journal_entry_weekend_post: false } } }, { txid: weekend }] });
    expect(notWeekend).toEqual([]);
    const riskiest = (await server.api.post(`/data-tables/${lines.id}/data`, { sort: { field: "risk", direction: "DESC" }, pageSize: 1 })).body.content[0];
    const sameLevel = await allRows(server, lines.id, { risk_level: riskiest.risk_level });
    expect(sameLevel.map((r) => r.rowid)).toContain(riskiest.rowid);
    expect(new Set(sameLevel.map((r) => r.risk_level))).toEqual(new Set([riskiest.risk_level]));
    const atLeast = await allRows(server, lines.id, { risk: { $gte: riskiest.risk } });
    expect(atLeast.length).toBeGreaterThan(0);
    expect(atLeast.every((r) => r.risk === riskiest.risk)).toBe(true);
    const cash = await allRows(server, lines.id, { account_hierarchy_codes: { $contains: "1.1.1" } });
    expect(new Set(cash.map((r) => r.account))).toEqual(new Set(["1000"]));
    const tx = await resultTable(server, resultId, "gl_journal_tx");
    const withPlant = await allRows(server, tx.id, { accounts: { $contains: "1500" } });
    expect(withPlant.map((t) => t.txid).sort()).toEqual([...ledger.txids.journal_entry_flat_gifi_bucket_rarity, ...ledger.txids.journal_entry_high_dollar_value].sort());
    const bad = await server.api.post(`/data-tables/${lines.id}/data`, { query: { cp_failed: { $flags: { nope: true } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("cp_failed.$flags");
  });

  it("pairs monetary flows: simple, complex (spread in proportion) and to the Unknown Account", async () => {
    const flows = await resultTable(server, resultId, "flows_compact");
    const complex = await allRows(server, flows.id, { txid: ledger.txids.journal_entry_complex_structure_v2[0] });
    expect(complex.every((f) => f.flow_type === "COMPLEX")).toBe(true);
    // Debits 311.13 (5000) + 222.27 (5400), credits 400.01 (2000) + 133.39 (2100): each pair in proportion.
    const amount = (debit: string, credit: string) => complex.find((f) => f.debit_account === debit && f.credit_account === credit)?.amount;
    expect([amount("5000", "2000"), amount("5000", "2100"), amount("5400", "2000"), amount("5400", "2100")]).toEqual([23332, 7781, 16669, 5558]);
    const unbalanced = await allRows(server, flows.id, { txid: ledger.txids.journal_entry_unbalanced_transaction[0] });
    expect(unbalanced.map((f) => [f.debit_account, f.credit_account ?? null, f.amount, f.unknown_flow])).toEqual(
      expect.arrayContaining([
        ["5400", "2000", 9001, false],
        ["5400", null, 1000, true],
      ]),
    );
    const simple = await allRows(server, flows.id, { $and: [{ flow_type: "SIMPLE" }, { debit_account: "1100" }, { credit_account: "4000" }] });
    expect(simple.length).toBeGreaterThan(100);
    expect(transactions.find((t) => t.txid === ledger.txids.journal_entry_unbalanced_transaction[0])).toMatchObject({ unknown_flow: true });
  });

  it("writes a result table into the file manager (import-from-data-table)", async () => {
    const lines = await resultTable(server, resultId, "gl_journal_lines");
    const started = await server.api.post("/file-manager/import-from-data-table", { dataTableId: lines.id, name: "weekend", fields: ["txid", "account", "risk", "cp_failed_journal_entry_weekend_post"], query: { cp_failed_journal_entry_weekend_post: true } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await awaitJob(server.api, started.body.id, 60_000);
    expect(done.status, done.error).toBe("COMPLETE");
    const bytes = await server.api.get(`/file-manager/${done.entityId}/export`);
    expect((bytes.body as string).split("\r\n")[0]).toBe("txid,account,risk,cp_failed_journal_entry_weekend_post");
    expect(bytes.body as string).toContain(`${ledger.txids.journal_entry_weekend_post[0]},5400,`);
  });
});
