import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { CHARTS, measureChart, modesOf, percent } from "../../../test/helpers/chart-inference.js";

// Issue 13 point 11: the default charts of accounts of QuickBooks, Sage 50 and Xero, ingested
// through the API as chart of accounts sources: at least 90% of their accounts in the right class
// (asset, liability, equity, revenue, expense), with every column the export has and with the
// number and name alone (as a general ledger journal names accounts). The figures, the share in the
// right lowest-level group and the misses are in docs/benchmarks.md (npm run bench mapping-inference).
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("account mapping inference on the common packages' default charts", () => {
  for (const chart of CHARTS.filter((c) => !c.heldOut)) {
    for (const mode of modesOf(chart)) {
      it(`${chart.title}, ${mode}: at least 90% in the right class`, async () => {
        const result = await measureChart(server.api, chart, mode);
        const misses = result.misses.filter((m) => !m.rightClass).map((m) => `${m.account} ${m.name}: ${m.inferred ?? "unmapped"}, expected ${m.expected ?? "unmapped"}`);
        expect(result.rightClass / result.accounts, `${percent(result.rightClass, result.accounts)} in the right class; wrong: ${misses.join("; ")}`).toBeGreaterThanOrEqual(0.9);
        // Every account the inference placed in a group is INFERRED, to be confirmed by a person.
        expect(result.misses.every((m) => m.inferred === null ? m.status === "UNMAPPED" : m.status === "INFERRED")).toBe(true);
      });
    }
  }
});
