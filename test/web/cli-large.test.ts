import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { runFap } from "../helpers/fap-cli.js";
import { analysisFixture, type SourceFixture } from "../helpers/analysis-sources.js";
import { writeGeneralLedgerCsv } from "../helpers/gl-generator.js";

const LINES = 1_000_000;

/** The `fap` client on the size it is for: a 1,000,000-line ledger, chunked upload and ingestion with progress. */
describe("fap with a 1,000,000-line general ledger", () => {
  let server: TestServer;
  let fixture: SourceFixture;
  const dir = mkdtempSync(join(tmpdir(), "fap-cli-large-"));
  const path = join(dir, "ledger-1m.csv");
  let transactions = 0;

  beforeAll(async () => {
    ({ transactions } = await writeGeneralLedgerCsv(path, LINES));
    server = await startTestServer();
    fixture = await analysisFixture(server, "CLI 1M");
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("uploads it in chunks and ingests it to COMPLETED, showing upload and workflow progress", async () => {
    const result = await runFap(server, dir, ["ingest", path, "--analysis", fixture.analysisId], { timeoutMs: 540_000, maxBuffer: 64 * 2 ** 20 });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const [sourceId, state] = result.stdout.trim().split(" ");
    expect(state).toBe("COMPLETED");
    expect(result.stderr).toMatch(/upload +\|.*\| 100%/);
    expect(result.stderr).toMatch(/workflow \|.*\| 100% COMPLETED/);

    // Every line and every transaction of the file arrived: the generator's own counts.
    for (const [logicalName, rows] of [["gl_journal_lines", LINES], ["gl_journal_tx", transactions]] as const) {
      const tables = await server.api.post("/data-tables/query", { analysisSourceId: sourceId, logicalName });
      expect(tables.body.content, logicalName).toHaveLength(1);
      expect(Number(tables.body.content[0].rowCount), logicalName).toBe(rows);
    }
  }, 600_000);
});
