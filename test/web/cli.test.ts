import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { runFap } from "../helpers/fap-cli.js";
import { analysisFixture, type SourceFixture } from "../helpers/analysis-sources.js";
import { journalCsv } from "../helpers/ledger.js";

/** The `fap` command-line client run as a child process against a real server. */
describe("fap (command-line client)", () => {
  let server: TestServer;
  let fixture: SourceFixture;
  const dir = mkdtempSync(join(tmpdir(), "fap-cli-"));
  const ledger = journalCsv(3000);
  const ledgerPath = join(dir, "journal.csv");
  writeFileSync(ledgerPath, ledger);

  const fap = (args: string[], env: Record<string, string> = {}) => runFap(server, dir, args, { env });

  beforeAll(async () => {
    server = await startTestServer();
    fixture = await analysisFixture(server, "CLI");
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("uploads in chunks, resumes after an interruption, and stores the exact bytes", async () => {
    const args = ["upload", ledgerPath, "--engagement", fixture.engagementId, "--chunk-size", "16KB"];
    const interrupted = await fap([...args, "--stop-after-parts", "3"]);
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toContain("run again to resume");
    expect(readdirSync(join(dir, "state", "uploads"))).toHaveLength(1);

    const resumed = await fap(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("resuming upload");
    expect(resumed.stderr).toContain("3 part(s) already on the server");
    expect(resumed.stderr).toMatch(/upload +\|.*\| 100%/);
    const fileId = resumed.stdout.trim();
    const download = await fetch(`${server.url}/api/v1/file-manager/${fileId}/export`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(ledger);
    expect(readdirSync(join(dir, "state", "uploads"))).toHaveLength(0);
  });

  let sourceId: string;
  it("ingests a local file and follows the workflow to COMPLETED with progress bars", async () => {
    const result = await fap(["ingest", ledgerPath, "--analysis", fixture.analysisId]);
    expect(result.code, result.stderr).toBe(0);
    const [id, state] = result.stdout.trim().split(" ");
    expect(state).toBe("COMPLETED");
    sourceId = id;
    expect(result.stderr).toMatch(/workflow \|.*\| 100% COMPLETED/);
    expect(result.stderr).toMatch(/step +\|.*\| \d+% [A-Z_]+/);
    const status = await fap(["status", sourceId, "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: sourceId, workflowState: "COMPLETED", errors: [] });
  });

  it("exports a filtered data table to a local CSV", async () => {
    const tables = await server.api.post("/data-tables/query", { analysisSourceId: sourceId, logicalName: "gl_journal_lines" });
    const tableId = tables.body.content[0].id;
    const out = join(dir, "out", "lines.csv");
    const result = await fap(["export", tableId, "-o", out, "--query", '{"account": "10100"}', "--fields", "txid,account,debit"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(out, "utf8").trim().split(/\r?\n/);
    const expected = ledger.split("\n").filter((line) => line.split(",")[2] === "10100");
    expect(lines[0].toLowerCase()).toContain("txid");
    expect(lines.length - 1).toBe(expected.length);
  });

  it("exits with documented codes: 2 without a token, 3 on an API refusal, 4 when the server is unreachable", async () => {
    const [noToken, notReady, missing, unreachable, usage] = await Promise.all([
      fap(["status", "x"], { FAP_TOKEN: "" }),
      fap(["run", fixture.analysisId]),
      fap(["status", "0123456789abcdef01234567"]),
      fap(["status", "x"], { FAP_SERVER: "http://127.0.0.1:9" }),
      fap(["upload"]),
    ]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("no API token");
    expect(notReady.code, notReady.stdout).toBe(3);
    expect(notReady.stderr).toMatch(/409/);
    expect(missing.code).toBe(3);
    expect(unreachable.code).toBe(4);
    expect(usage.code).toBe(2);
  });
});
