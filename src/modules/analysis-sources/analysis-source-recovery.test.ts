import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RestClient } from "../../../test/helpers/client.js";
import { createTestDatabase } from "../../../test/helpers/database.js";
import { awaitJob, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";
import { GENERAL_LEDGER_ANALYSIS_TYPE, GL_SOURCE_TYPE } from "../../../test/helpers/analysis-sources.js";

const ROOT = new URL("../../../", import.meta.url).pathname;
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

/** `npm start` as a child process, so the test can kill it with SIGKILL mid-job. */
async function spawnServer(env: Record<string, string>): Promise<{ process: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Ready: REST (http:\/\/\S+)\/api\/v1/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`server exited: ${output}`)));
  });
  return { process: child, url, exited };
}

function ledger(lines: number): string {
  const out = ["Journal ID,Effective Date,Account,Account Description,Debit,Credit,Memo"];
  for (let i = 0; i < lines / 2; i++) {
    const day = String((i % 28) + 1).padStart(2, "0");
    out.push(`JE${i},03/${day}/2023,10100,Cash,${(i % 997) + 1}.25,,"Receipt ${i}, cash"`, `JE${i},03/${day}/2023,40100,Revenue,,${(i % 997) + 1}.25,"Receipt ${i}, cash"`);
  }
  return out.join("\n") + "\n";
}

describe("analysis source jobs survive a crash", () => {
  it("resumes the interrupted Transition after kill -9 and reaches COMPLETED", async () => {
    const { url: databaseUrl } = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), "fap-sources-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const token = `fap_test_${randomBytes(12).toString("hex")}`;
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", BOOTSTRAP_TOKEN: token, JOB_LEASE_SECONDS: "2", JOB_SWEEP_SECONDS: "1", LOG_LEVEL: "error" };

    const first = await spawnServer(env);
    const api = new RestClient(first.url, token);
    const engagement = await createEngagement(api, "crash");
    const analysis = await api.post("/analyses", { engagementId: engagement.id, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: "GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
    const upload = await postMultipart(first.url, token, "/file-manager/import", [
      { name: "fileManagerFile", json: { engagementId: engagement.id, name: "big.csv" } },
      { name: "file", filename: "big.csv", contentType: "text/csv", data: ledger(250_000) },
    ]);
    expect(upload.status).toBe(200);
    const started = await api.post("/analysis-sources", { analysisId: analysis.body.id, analysisSourceTypeId: GL_SOURCE_TYPE, fileManagerFileId: upload.body.id, targetWorkflowState: "COMPLETED" });
    expect(started.status).toBe(200);
    const sourceId = started.body.entityId;
    // Kill the server mid-walk (normally while it stages the file, the Transition FORMAT_DETECTION_COMPLETED).
    const killedAt = await waitFor(async () => {
      const state = (await api.get(`/analysis-sources/${sourceId}`)).body.workflowState;
      return ["STARTED", "DETECTING_FORMAT"].includes(state) ? undefined : state;
    }, "staging to start", 30_000);
    expect(killedAt).not.toBe("COMPLETED");
    first.process.kill("SIGKILL");
    await first.exited;

    const second = await spawnServer(env);
    const again = new RestClient(second.url, token);
    const job = await awaitJob(again, started.body.id, 90_000);
    expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
    const source = (await again.get(`/analysis-sources/${sourceId}`)).body;
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.fileInfo.rowCount).toBe(250_000);
    second.process.kill("SIGTERM");
    await second.exited;
  }, 180_000);
});
