import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis, updateConfiguration } from "../../../test/helpers/analysis-run.js";
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
