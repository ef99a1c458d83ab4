import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { background, ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";

/**
 * Exact pairs in complex transactions (docs/control-points.md, monetary flows): in a transaction
 * debiting and crediting two accounts or more, a debit account and a credit account of equal
 * amounts are paired first (SIMPLE), the rest spread. The engine computes flows as if there were
 * none and recomputes the transactions that may have some: these must come out paired.
 */
let server: TestServer;
let flowsId: string;
const base = { type: "GJ", user: "jsmith", memo: "Allocation" };
const planted: Record<string, Tx> = {
  twoPairs: { ...base, date: "2023-06-13", lines: [{ account: "5000", amount: 10_000 }, { account: "5400", amount: 5_000 }, { account: "2000", amount: -10_000 }, { account: "2100", amount: -5_000 }] },
  pairAndRest: { ...base, date: "2023-06-14", lines: [{ account: "5000", amount: 10_000 }, { account: "5400", amount: 7_000 }, { account: "2000", amount: -10_000 }, { account: "2100", amount: -3_000 }, { account: "1000", amount: -4_000 }] },
  // Spread in proportion, the one-cent pair would round to nothing: it is still paired exactly.
  centPair: { ...base, date: "2023-06-15", lines: [{ account: "5000", amount: 1 }, { account: "5400", amount: 999_999 }, { account: "2000", amount: -1 }, { account: "2100", amount: -500_000 }, { account: "1000", amount: -499_999 }] },
  // Two debits and two credits of one amount: paired in account order.
  sameAmount: { ...base, date: "2023-06-16", lines: [{ account: "5400", amount: 2_000 }, { account: "5000", amount: 2_000 }, { account: "2100", amount: -2_000 }, { account: "2000", amount: -2_000 }] },
};

beforeAll(async () => {
  server = await startTestServer();
  const all = [...background(11), ...Object.values(planted)].sort((a, b) => a.date.localeCompare(b.date));
  all.forEach((tx, i) => (tx.txid = `JE${String(i + 1).padStart(6, "0")}`));
  const analysis = await ledgerAnalysis(server, "Exact pairs", ledgerCsv(all));
  const run = await runAnalysis(server, analysis.analysisId);
  flowsId = (await resultTable(server, run.result.id, "flows_compact")).id;
}, 120_000);
afterAll(async () => server?.close());

async function flowsOf(tx: Tx): Promise<Array<[string, string, number, string]>> {
  const rows = await allRows(server, flowsId, { txid: tx.txid });
  return rows.map((f) => [f.debit_account, f.credit_account, f.amount, f.flow_type] as [string, string, number, string]).sort((a, b) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`));
}

describe("monetary flows with exact pairs in complex transactions", () => {
  it("pairs equal debit and credit accounts first, as SIMPLE flows", async () => {
    expect(await flowsOf(planted.twoPairs)).toEqual([
      ["5000", "2000", 10_000, "SIMPLE"],
      ["5400", "2100", 5_000, "SIMPLE"],
    ]);
    expect(await flowsOf(planted.sameAmount)).toEqual([
      ["5000", "2000", 2_000, "SIMPLE"],
      ["5400", "2100", 2_000, "SIMPLE"],
    ]);
  });

  it("spreads what remains after the exact pairs", async () => {
    expect(await flowsOf(planted.pairAndRest)).toEqual([
      ["5000", "2000", 10_000, "SIMPLE"],
      ["5400", "1000", 4_000, "COMPLEX"],
      ["5400", "2100", 3_000, "COMPLEX"],
    ]);
    expect(await flowsOf(planted.centPair)).toEqual([
      ["5000", "2000", 1, "SIMPLE"],
      ["5400", "1000", 499_999, "COMPLEX"],
      ["5400", "2100", 500_000, "COMPLEX"],
    ]);
  });
});
