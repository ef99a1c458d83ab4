import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, analysisConfiguration, ledgerAnalysis, resultTable, runAnalysis, updateConfiguration } from "../../../test/helpers/analysis-run.js";
import { ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";

/**
 * The score arithmetic checked by hand on five transactions: only three control points weigh
 * (Weekend Post, Zero Entry, Last 3 Digits), with other weights per risk group; then weights,
 * risk ranges, groups and custom control points change and the next run's scores follow.
 */
let server: TestServer;
let analysisId: string;

const tx = (txid: string, date: string, debit: string, credit: string, amount: number, extra: Partial<Tx> = {}): Tx => ({
  txid,
  date,
  type: "AP",
  user: "ap_clerk",
  memo: `Bill ${txid}`,
  lines: [{ account: debit, amount }, { account: credit, amount: -amount }],
  ...extra,
});

const LEDGER: Tx[] = [
  tx("T1", "2023-05-10", "5400", "2000", 10_001), // nothing
  tx("T2", "2023-05-13", "5400", "2000", 10_003), // Saturday: weekend
  { ...tx("T3", "2023-05-11", "5400", "2000", 10_007), lines: [{ account: "5400", amount: 10_007 }, { account: "5000", amount: 0 }, { account: "2000", amount: -10_007 }] }, // zero entry
  tx("T4", "2023-05-12", "5400", "2000", 500_000), // 5,000.00: last 3 digits
  tx("T5", "2023-05-15", "1000", "4000", 20_011), // cash received from sales: an asset entry
];

/** Every control point of the configuration at 0, then the given weights, in each named group. */
async function setWeights(weights: Record<string, Record<string, number>>, extra: Record<string, unknown> = {}) {
  return updateConfiguration(server, analysisId, (current) => ({
    configuration: {
      ...extra,
      riskGroups: current.configuration.riskGroups.map((g: { id: string; riskAssertionCategory: string; controlPointWeights: Record<string, number> }) => ({
        id: g.id,
        controlPointWeights: { ...Object.fromEntries(Object.keys(g.controlPointWeights).map((k) => [k, 0])), ...(weights[g.riskAssertionCategory] ?? {}) },
      })),
    },
  }));
}

async function scores() {
  const run = await runAnalysis(server, analysisId);
  const tx = Object.fromEntries((await allRows(server, (await resultTable(server, run.result.id, "gl_journal_tx")).id)).map((t) => [t.txid, t]));
  const lines = await allRows(server, (await resultTable(server, run.result.id, "gl_journal_lines")).id);
  const line = (txid: string, account: string) => lines.find((l) => l.txid === txid && l.account === account)!;
  return { run, tx, line };
}

beforeAll(async () => {
  server = await startTestServer();
  analysisId = (await ledgerAnalysis(server, "Arithmetic", ledgerCsv(LEDGER))).analysisId;
}, 120_000);
afterAll(async () => server?.close());

describe("scores", () => {
  it("are sum(score x weight) / sum(weights) per risk group, levels from the group's risk range", async () => {
    await setWeights({
      GENERAL: { journal_entry_weekend_post: 3, journal_entry_zero: 7, journal_entry_last_3_digits: 11 },
      PROFIT_LOSS: { journal_entry_weekend_post: 50, journal_entry_zero: 50 },
      LIABILITIES_EQUITY: { journal_entry_weekend_post: 20, journal_entry_last_3_digits: 80 },
    });
    const { tx, line } = await scores();
    // Transactions: the platform score (GENERAL), weights 3 + 7 + 11 = 21.
    expect(tx.T1).toMatchObject({ risk: 0, risk_level: "LOW" });
    expect(tx.T2).toMatchObject({ risk: 1429, risk_level: "LOW", cp_score_journal_entry_weekend_post: 10000, cp_failed_journal_entry_weekend_post: true }); // 10000 x 3 / 21
    expect(tx.T3).toMatchObject({ risk: 3333, risk_level: "MEDIUM", cp_score_journal_entry_zero: 10000 }); // 10000 x 7 / 21
    expect(tx.T4).toMatchObject({ risk: 5238, risk_level: "HIGH", cp_score_journal_entry_last_3_digits: 10000 }); // 10000 x 11 / 21
    // Entries: their own group's weights on their transaction's scores (inherited per control point).
    expect(line("T2", "5400")).toMatchObject({ riskGroup: "PROFIT_LOSS", risk: 5000, risk_level: "HIGH" }); // 10000 x 50 / 100
    expect(line("T2", "2000")).toMatchObject({ riskGroup: "LIABILITIES_EQUITY", risk: 2000, risk_level: "LOW" }); // 10000 x 20 / 100
    expect(line("T3", "5000")).toMatchObject({ riskGroup: "PROFIT_LOSS", risk: 5000, cp_failed_journal_entry_zero: true, amount: 0 });
    expect(line("T3", "5400")).toMatchObject({ risk: 5000, cp_failed_journal_entry_zero: true }); // inherits the zero entry of its transaction
    expect(line("T4", "5400")).toMatchObject({ risk: 0, risk_level: "LOW" }); // last 3 digits weighs 0 for profit and loss
    expect(line("T4", "2000")).toMatchObject({ risk: 8000, risk_level: "HIGH" });
    // Assets weigh nothing: unscored.
    expect(line("T5", "1000")).toMatchObject({ riskGroup: "ASSETS", risk_level: "UNSCORED" });
    expect(line("T5", "1000").risk).toBeUndefined();
    expect(line("T5", "4000")).toMatchObject({ riskGroup: "PROFIT_LOSS", risk: 0 });
  });

  it("follow changed weights, risk ranges and groups in the next run", async () => {
    await setWeights({ GENERAL: { journal_entry_weekend_post: 21, journal_entry_zero: 7, journal_entry_last_3_digits: 11 } });
    const config = await analysisConfiguration(server, analysisId);
    const general = config.configuration.riskGroups.find((g: { riskAssertionCategory: string }) => g.riskAssertionCategory === "GENERAL");
    const range = (await server.api.get(`/risk-ranges/${general.selectedRiskRange}`)).body;
    const changed = await server.api.put(`/risk-ranges/${range.id}`, { ...range, medium: { lowThreshold: 3000, highThreshold: 6000 }, high: { lowThreshold: 6000, highThreshold: 10000 } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // Assets disabled: asset accounts fall back to the platform score group.
    const assets = config.configuration.riskGroups.find((g: { riskAssertionCategory: string }) => g.riskAssertionCategory === "ASSETS");
    await updateConfiguration(server, analysisId, () => ({ configuration: { riskGroups: [{ id: assets.id, disabled: true }] } }));
    const { tx, line } = await scores();
    expect(tx.T2).toMatchObject({ risk: 5385, risk_level: "MEDIUM" }); // 10000 x 21 / 39, now below high (6000)
    expect(tx.T4).toMatchObject({ risk: 2821, risk_level: "LOW" }); // 10000 x 11 / 39
    expect(line("T5", "1000")).toMatchObject({ riskGroup: "GENERAL", risk: 0, risk_level: "LOW" });
  });

  it("scores custom expert-rule control points (custom_ ids, weight 0 until set) after the 36 columns", async () => {
    const added = await updateConfiguration(server, analysisId, () => ({
      configuration: {
        customControlPoints: [
          { id: "custom_cash_sales", name: "Cash sales", status: "PUBLISHED", rules: [{ debit: "1.1.1", credit: "4", rating: "HIGH" }] },
          { id: "custom_draft", name: "Draft", status: "DRAFT", rules: [{ debit: "*", credit: "*", rating: "LOW" }] },
        ],
      },
    }));
    expect(added.configuration.riskGroups.every((g: { controlPointWeights: Record<string, number> }) => g.controlPointWeights.custom_cash_sales === 0)).toBe(true);
    const unweighted = await scores();
    expect(unweighted.tx.T5).toMatchObject({ cp_score_custom_cash_sales: 10000, cp_failed_custom_cash_sales: true, risk: 0 });
    const columns = (await resultTable(server, unweighted.run.result.id, "gl_journal_tx")).columns.map((c) => c.field);
    expect(columns.indexOf("cp_failed_custom_cash_sales")).toBe(columns.indexOf("unknown_flow") - 1);
    expect(columns).not.toContain("cp_failed_custom_draft");

    await setWeights({ GENERAL: { journal_entry_weekend_post: 21, journal_entry_zero: 7, journal_entry_last_3_digits: 11, custom_cash_sales: 40 } });
    const weighted = await scores();
    expect(weighted.tx.T5.risk).toBe(5063); // 10000 x 40 / (21 + 7 + 11 + 40)
  });

  it("refuses bad settings and custom control points, naming the field", async () => {
    const config = await analysisConfiguration(server, analysisId);
    const put = (configuration: unknown) => server.api.put(`/analysis-type-configuration/${config.id}`, { configuration, version: config.version });
    const cases: Array<[unknown, string]> = [
      [{ controlPointSettings: { journal_entry_weekend_post: { weekendDays: [8] } } }, "configuration.controlPointSettings.journal_entry_weekend_post.weekendDays"],
      [{ controlPointSettings: { nope: {} } }, "configuration.controlPointSettings.nope"],
      [{ controlPointSettings: { journal_entry_suspicious_keyword: { keywords: "fraud" } } }, "configuration.controlPointSettings.journal_entry_suspicious_keyword.keywords"],
      [{ controlPointSettings: { general: { flagThreshold: 0 } } }, "configuration.controlPointSettings.general.flagThreshold"],
      [{ customControlPoints: [{ id: "cash_sales", name: "x", status: "PUBLISHED", rules: [] }] }, "configuration.customControlPoints[0].id"],
      [{ customControlPoints: [{ id: "custom_x", name: "x", status: "PUBLISHED", rules: [{ debit: "1", credit: "2", rating: "SEVERE" }] }] }, "configuration.customControlPoints[0].rules[0].rating"],
    ];
    for (const [configuration, identifier] of cases) {
      const response = await put(configuration);
      expect(response.status, JSON.stringify(configuration)).toBe(400);
      expect(response.body.problems.map((p: { identifier: string }) => p.identifier)).toContain(identifier);
    }
    const defaults = (await server.api.get(`/analysis-type-configuration/${config.id}`)).body.configuration.controlPointSettings;
    expect(defaults.journal_entry_suspicious_keyword.keywords).toContain("per ceo");
    expect(defaults.general).toEqual({ flagThreshold: 5000 });
  });
});
