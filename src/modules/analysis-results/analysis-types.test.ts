import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, resultTable, runAnalysis, updateConfiguration, verifyMappings } from "../../../test/helpers/analysis-run.js";
import { ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { background, ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";
import { PARTIES, partyListCsv, subledger } from "../../../test/helpers/subledger-ledger.js";
import { AP_CONTROL_POINTS, AR_CONTROL_POINTS } from "../../engine/index.js";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS, SYSTEM_LIBRARY_IDS } from "../catalogue/ids.js";

/**
 * Every other analysis type of the catalogue end to end: not-for-profit ledgers (with and without
 * funds) and their additional control points, payables and receivables with an anomaly planted
 * for each of their control points; background entries are not flagged.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => server?.close());

async function fixture(name: string, libraryId: string, analysisTypeId: string): Promise<SourceFixture> {
  const organization = await server.api.post("/organizations", { name: `${name} org` });
  const engagement = await server.api.post("/engagements", { organizationId: organization.body.id, name, libraryId, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
  const analysis = await server.api.post("/analyses", { engagementId: engagement.body.id, analysisTypeId, name, analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  return { engagementId: engagement.body.id, analysisId: analysis.body.id, periodId: analysis.body.analysisPeriods[0].id };
}

const simple = (date: string, debit: string, credit: string, amount: number, extra: Partial<Tx> = {}): Tx => ({
  date,
  type: "AP",
  user: "ap_clerk",
  memo: "Bill 4711",
  lines: [{ account: debit, amount }, { account: credit, amount: -amount }],
  ...extra,
});

/** Not-for-profit plants: an expense flurry day, an expense split within one transaction and over two. */
function nfpLedger(fund?: boolean) {
  const plants: Record<string, Tx[]> = {
    // Ten expense postings on a day without background activity, against an account without background.
    journal_entry_nfp_expense_flurry: Array.from({ length: 10 }, (_, i) => simple("2023-06-26", "5300", "3000", 800_011 + i * 13, { memo: `Emergency supplies ${i}` })),
    journal_entry_nfp_split_expense_single: [
      { ...simple("2023-05-10", "5400", "2000", 0), lines: [{ account: "5400", amount: 25_000 }, { account: "5400", amount: 25_000 }, { account: "2000", amount: -50_000 }] },
    ],
    journal_entry_nfp_split_expense_multiple: [
      simple("2023-07-26", "5300", "3000", 3_000_001, { user: "buyer", memo: "Part 1" }),
      simple("2023-07-26", "5300", "3000", 3_000_003, { user: "buyer", memo: "Part 2" }),
    ],
  };
  if (fund) {
    plants.journal_entry_nfp_fund_expense_flurry = plants.journal_entry_nfp_expense_flurry;
    plants.journal_entry_nfp_interfund_transfer = [{ ...simple("2023-09-12", "1000", "1000", 0), lines: [{ account: "1000", amount: 40_009, fund: "RESTRICTED" }, { account: "1000", amount: -40_009, fund: "GENERAL" }] }];
  }
  const all = [...background(3, { sales: 10, collections: 8, purchases: 8, payroll: 2, supplies: 0 }), ...new Set(Object.values(plants).flat())].sort((a, b) => a.date.localeCompare(b.date));
  all.forEach((t, i) => (t.txid = `N${String(i + 1).padStart(5, "0")}`));
  return { csv: ledgerCsv(all, fund ? { fund: "GENERAL" } : {}), plants };
}

async function runLedger(name: string, libraryId: string, analysisTypeId: string, sourceTypeId: string, csv: string, settings: Record<string, unknown> = {}) {
  const f = await fixture(name, libraryId, analysisTypeId);
  const { source } = await ingest(server, f, csv, { targetWorkflowState: "COMPLETED", analysisSourceTypeId: sourceTypeId });
  expect(source.workflowState, JSON.stringify(source.errors)).toBe("COMPLETED");
  await verifyMappings(server, f.engagementId);
  if (Object.keys(settings).length > 0) await updateConfiguration(server, f.analysisId, () => ({ configuration: { controlPointSettings: settings } }));
  const run = await runAnalysis(server, f.analysisId, "COMPLETE", 120_000);
  return { fixture: f, result: run.result };
}

function expectPlantsFlagged(rows: Array<Record<string, any>>, plants: Record<string, Tx[]>, key = "txid") {
  const byTxid = new Map(rows.map((r) => [r[key], r]));
  const missed: string[] = [];
  for (const [point, txs] of Object.entries(plants)) for (const tx of txs) if (!byTxid.get(tx.txid)?.[`cp_failed_${point}`]) missed.push(`${point} ${tx.txid}`);
  expect(missed).toEqual([]);
}

describe("not-for-profit general ledger", () => {
  it("runs with the 36 control points and the split expense additions; flags the plants and no background transaction", async () => {
    const ledger = nfpLedger();
    const { result } = await runLedger("NFP", SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT, ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER, ANALYSIS_SOURCE_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL, ledger.csv, {
      journal_entry_nfp_split_expense_multiple: { threshold: 5_000_000 },
    });
    const table = await resultTable(server, result.id, "gl_journal_tx");
    const fields = table.columns.map((c) => c.field);
    expect(fields.indexOf("cp_failed_journal_entry_nfp_split_expense_multiple")).toBe(fields.indexOf("unknown_flow") - 1);
    const rows = await allRows(server, table.id);
    expectPlantsFlagged(rows, ledger.plants);
    const planted = new Set(Object.values(ledger.plants).flatMap((txs) => txs.map((t) => t.txid)));
    const nfpFlags = ["journal_entry_nfp_expense_flurry", "journal_entry_nfp_split_expense_single", "journal_entry_nfp_split_expense_multiple"];
    expect(rows.filter((r) => !planted.has(r.txid) && nfpFlags.some((n) => r[`cp_failed_${n}`])).map((r) => r.txid)).toEqual([]);
    expect(result.summary.controlPoints.find((c: { name: string }) => c.name === "journal_entry_nfp_expense_flurry")).toMatchObject({ available: true });
  });

  it("with funds: interfund transfers and the expense flurry per fund", async () => {
    const ledger = nfpLedger(true);
    const { result } = await runLedger("NFP fund", SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS, ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND, ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL_FUND, ledger.csv, {
      journal_entry_nfp_split_expense_multiple: { threshold: 5_000_000 },
    });
    const rows = await allRows(server, (await resultTable(server, result.id, "gl_journal_tx")).id);
    expectPlantsFlagged(rows, ledger.plants);
    const lines = await allRows(server, (await resultTable(server, result.id, "gl_journal_lines")).id, { fund_id: "RESTRICTED" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ account: "1000", cp_failed_journal_entry_nfp_interfund_transfer: true, riskGroup: "ASSETS" });
  });
});

describe.each([
  ["AP", ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2, ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL, ANALYSIS_SOURCE_TYPE_IDS.VENDOR_LIST, "ap_detail_entries", AP_CONTROL_POINTS],
  ["AR", ANALYSIS_TYPE_IDS.ACCOUNTS_RECEIVABLE_V2, ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_RECEIVABLE_DETAIL, ANALYSIS_SOURCE_TYPE_IDS.CUSTOMER_LIST, "ar_detail_entries", AR_CONTROL_POINTS],
] as const)("%s", (side, typeId, detailType, listType, logicalName, points) => {
  it(`scores ${points.length} control points with the documented default weights; flags each plant and no background entry`, async () => {
    const ledger = subledger(side);
    const f = await fixture(`${side} detail`, SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, typeId);
    const config = (await server.api.post("/analysis-type-configuration/query", { analysisId: f.analysisId })).body.content[0];
    const weights = config.configuration.riskGroups[0].controlPointWeights;
    expect(Object.values(weights).reduce((a: number, b) => a + (b as number), 0)).toBe(side === "AP" ? 146 : 136);
    expect(Object.keys(weights).sort()).toEqual(points.map((p) => p.name).sort());
    const detail = await ingest(server, f, ledger.csv, { targetWorkflowState: "COMPLETED", analysisSourceTypeId: detailType });
    expect(detail.source.workflowState, JSON.stringify(detail.source.errors)).toBe("COMPLETED");
    const list = await ingest(server, f, partyListCsv(side, PARTIES), { targetWorkflowState: "COMPLETED", analysisSourceTypeId: listType });
    expect(list.source.workflowState, JSON.stringify(list.source.errors)).toBe("COMPLETED");
    const prefix = side === "AP" ? "ap_entry_" : "ar_entry_";
    await updateConfiguration(server, f.analysisId, () => ({
      configuration: {
        controlPointSettings: {
          [`${prefix}two_digit_benford`]: { minimumEntries: 300 },
          [`${prefix}high_monetary_value`]: { threshold: 50_000_000 },
          [`${prefix}${side === "AP" ? "invoice_from_related_party" : "invoice_to_related_party"}`]: { relatedParties: ["REL"] },
        },
      },
    }));
    const run = await runAnalysis(server, f.analysisId, "COMPLETE", 120_000);
    const table = await resultTable(server, run.result.id, logicalName);
    const rows = await allRows(server, table.id);
    expect(rows).toHaveLength(ledger.rows.length);
    const key = (r: Record<string, any>) => `${r.invoiceId ?? r.invoice_id}|${r.amount}|${r.memo ?? ""}`;
    const byKey = new Map<string, Array<Record<string, any>>>();
    for (const r of rows) byKey.set(key(r), [...(byKey.get(key(r)) ?? []), r]);
    const missed: string[] = [];
    for (const [point, planted] of Object.entries(ledger.plants)) {
      for (const p of planted) if (!(byKey.get(key(p)) ?? []).some((r) => r[`cp_failed_${prefix}${point}`])) missed.push(`${point} ${p.invoiceId}`);
    }
    expect(missed).toEqual([]);
    expect(new Set(Object.keys(ledger.plants).map((k) => prefix + k))).toEqual(new Set(points.map((p) => p.name)));
    const plantedKeys = new Set([...ledger.planted].map((p) => key(p)));
    const flagged = rows.filter((r) => !plantedKeys.has(key(r))).flatMap((r) => Object.keys(r).filter((k) => k.startsWith("cp_failed_") && r[k]).map((k) => `${r.invoice_id} ${k}`));
    expect(flagged).toEqual([]);
    // One risk group: each entry's risk is its own weighted score.
    const risky = rows.find((r) => r.invoice_id === "P09-001")!;
    expect(risky.risk).toBeGreaterThan(0);
    expect(run.result.summary.transactions).toBeUndefined();
  });
});
