import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneralLedgerCsv } from "../../../test/helpers/gl-generator.js";
import { analysisFixture, createSource, settle, uploadFile, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { awaitJob, waitFor } from "../../../test/helpers/entities.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { FixtureDir } from "../../../test/ingestion/fixtures.js";
import { newId } from "../../core/ids.js";
import { inTransaction } from "../../events/outbox.js";
import { startJob } from "../../jobs/index.js";
import { ingestionTables } from "../../ingestion/index.js";
import { dropStaleArrivalTables } from "../file-infos/file-info.cleanup.js";
import { completeFileInfo, computeFileInfoJob, withProfileLock } from "../file-infos/file-info.jobs.js";
import { createFileRow, fileObjectKey } from "../file-manager/file-manager.service.js";

let server: TestServer;
let fixture: SourceFixture;
let ledger: Buffer;
const dir = new FixtureDir();

beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "File reading");
  const path = dir.write("ledger.csv", "");
  await writeGeneralLedgerCsv(path, 4000, 31);
  ledger = Buffer.from(await import("node:fs").then((fs) => fs.readFileSync(path)));
});
afterAll(async () => {
  await server?.close();
  dir.remove();
});

const stagedTableOf = async (fileId: string): Promise<string | null> => {
  const info = await server.running.app.prisma.fileInfo.findFirst({ where: { fileManagerFileId: fileId } });
  return (info?.tabularReading as { staged?: { table: string } } | null)?.staged?.table ?? null;
};
const exists = async (table: string) => (await server.running.app.pool.query("SELECT to_regclass($1) AS t", [table])).rows[0].t !== null;
const entriesOf = (sourceId: string) => ingestionTables(sourceId).entries;

/** Another general ledger analysis in the same engagement (the files are the engagement's). */
async function anotherAnalysis(name: string): Promise<SourceFixture> {
  const analysis = await server.api.post("/analyses", {
    engagementId: fixture.engagementId,
    analysisTypeId: "4b8360d00000000000000000",
    name,
    analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }],
  });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  return { engagementId: fixture.engagementId, analysisId: analysis.body.id, periodId: analysis.body.analysisPeriods[0].id };
}

/** A file as a job produces one: its file info PENDING; `withJob: false` leaves it without the job that would compute it. */
async function producedFile(content: Buffer, withJob: boolean) {
  const app = server.running.app;
  const user = (await server.api.get("/users/current")).body;
  const id = newId();
  await app.storage.write(fileObjectKey(id), Readable.from([content]));
  return inTransaction(app, async (tx, emit) => {
    const row = (await createFileRow(tx, emit, { id, engagementId: fixture.engagementId, name: "produced", extension: "csv", originalName: "produced.csv", size: content.length }, { userId: user.id, userName: user.userName })) as {
      id: string;
      fileInfoId: string;
    };
    if (!withJob) await tx.asyncResult.deleteMany({ where: { entityId: row.fileInfoId } });
    return row;
  });
}

describe("an analysis source reads its file once", () => {
  it("takes over the staging table loaded while the file arrived; a second source stages the stored file to the same entries", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "ledger.csv", ledger);
    const table = await stagedTableOf(fileId);
    expect(table).toMatch(/^ingest\.arr_\d{14}_[0-9a-f]{12}$/);
    expect(await exists(table!)).toBe(true);

    const first = await settle(server, (await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" })).id);
    expect(first.source.workflowState).toBe("COMPLETED");
    // Renamed into the source's staging table: no longer there under its own name.
    expect(await exists(table!)).toBe(false);
    expect(await exists(ingestionTables(first.source.id).staging)).toBe(true);

    const other = await anotherAnalysis("File reading, second source");
    const second = await settle(server, (await createSource(server, other, fileId, { targetWorkflowState: "COMPLETED" })).id);
    expect(second.source.fileInfo).toEqual(first.source.fileInfo);
    // The first took the detection the upload staged with, the second detected the stored file: the same.
    const detections = await server.running.app.prisma.analysisSource.findMany({ where: { id: { in: [first.source.id, second.source.id] } }, select: { id: true, detection: true, detectedFormat: true } });
    const [d1, d2] = [first.source.id, second.source.id].map((id) => detections.find((d) => d.id === id)!);
    expect(JSON.stringify(d1.detection)).toBe(JSON.stringify(d2.detection));
    expect(d1.detectedFormat).toEqual(d2.detectedFormat);
    const pool = server.running.app.pool;
    const [a, b] = [entriesOf(first.source.id), entriesOf(second.source.id)];
    expect(Number((await pool.query(`SELECT count(*) AS n FROM ${a}`)).rows[0].n)).toBe(4000);
    const difference = await pool.query(`SELECT count(*)::int AS n FROM ((TABLE ${a} EXCEPT ALL TABLE ${b}) UNION ALL (TABLE ${b} EXCEPT ALL TABLE ${a})) d`);
    expect(difference.rows[0].n).toBe(0);
  });

  it("profiles a file whose info is PENDING (its job not started) while staging it, and completes the info: the job then finds it done", async () => {
    const file = await producedFile(ledger, false);
    const reference = await uploadFile(server, fixture.engagementId, "reference.csv", ledger);
    const other = await anotherAnalysis("Pending info");
    const { source } = await settle(server, (await createSource(server, other, file.id, { targetWorkflowState: "COMPLETED" })).id);
    expect(source.workflowState).toBe("COMPLETED");
    const computed = (await server.api.get(`/file-info/${file.fileInfoId}`)).body;
    const expected = (await server.api.get(`/file-info/${(await server.api.get(`/file-manager/${reference}`)).body.fileInfoId}`)).body;
    expect(computed).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", version: 1 });
    expect(computed.columnData).toEqual(expected.columnData);
    expect(computed.tableMetadata).toEqual(expected.tableMetadata);

    // The job, when it comes, has nothing left to do: the info keeps its version.
    const app = server.running.app;
    const user = (await server.api.get("/users/current")).body;
    const job = await inTransaction(app, (tx) =>
      startJob(tx, { job: computeFileInfoJob, payload: { fileInfoId: file.fileInfoId, fileId: file.id, storageKey: fileObjectKey(file.id) }, entityType: "FILE_INFO", entityId: file.fileInfoId, startedBy: { userId: user.id, userName: user.userName } }),
    );
    await waitFor(async () => ((await app.prisma.asyncResult.findUnique({ where: { id: job.id } }))?.status === "COMPLETE" ? true : undefined), "the file info job");
    expect((await server.api.get(`/file-info/${file.fileInfoId}`)).body.version).toBe(1);
  });

  it("waits for a file info being computed and uses it instead of profiling the file again", async () => {
    const app = server.running.app;
    const file = await producedFile(ledger, false);
    const other = await anotherAnalysis("Running info");
    let started: { id: string; entityId: string } | undefined;
    // The test plays the file info job: it holds the profile's lock while it "inspects".
    await withProfileLock(app, file.fileInfoId, async () => {
      started = await createSource(server, other, file.id, { targetWorkflowState: "COMPLETED" });
      await waitFor(async () => ((await server.api.get(`/analysis-sources/${started!.entityId}`)).body.workflowState === "FORMAT_DETECTION_COMPLETED" ? true : undefined), "staging to start");
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Still waiting for the profile rather than staging on its own.
      expect((await server.api.get(`/analysis-sources/${started!.entityId}`)).body.workflowState).toBe("FORMAT_DETECTION_COMPLETED");
      const { inspectFile } = await import("../file-infos/file-inspector.js");
      const found = await inspectFile({ name: "produced.csv", extension: "csv", size: ledger.length, open: () => app.storage.read(fileObjectKey(file.id)), withLocalPath: (work) => app.storage.withLocalPath(fileObjectKey(file.id), work), signal: new AbortController().signal });
      // A marker only this inspection has: the source must show it.
      await completeFileInfo(app.prisma, file.fileInfoId, { ...found, rowContentSnippets: [...(found.rowContentSnippets ?? []), ["from the running job"]] });
    });
    const job = await awaitJob(server.api, started!.id);
    expect(job.status).toBe("COMPLETE");
    const source = (await server.api.get(`/analysis-sources/${started!.entityId}`)).body;
    expect(source.fileInfo.rowContentSnippets).toContainEqual(["from the running job"]);
  });

  it("drops the staging table of a deleted file, and those nobody took over once they are two hours old", async () => {
    const app = server.running.app;
    const deleted = await uploadFile(server, fixture.engagementId, "deleted.csv", ledger);
    const table = (await stagedTableOf(deleted))!;
    expect((await server.api.delete(`/file-manager/${deleted}`)).status).toBe(204);
    expect(await exists(table)).toBe(false);

    const kept = await uploadFile(server, fixture.engagementId, "kept.csv", ledger);
    const keptTable = (await stagedTableOf(kept))!;
    expect(await dropStaleArrivalTables(app)).toBe(0);
    expect(await exists(keptTable)).toBe(true);
    expect(await dropStaleArrivalTables(app, Date.now() + 2 * 3600 * 1000 + 60_000)).toBeGreaterThanOrEqual(1);
    expect(await exists(keptTable)).toBe(false);
    // A source of that file then stages the stored file (profile reused).
    const other = await anotherAnalysis("After cleanup");
    const { source } = await settle(server, (await createSource(server, other, kept, { targetWorkflowState: "COMPLETED" })).id);
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.fileInfo.rowCount).toBe(4000);
  });
});
