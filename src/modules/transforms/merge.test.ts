import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";

let server: TestServer;
let engagementId: string;

beforeAll(async () => {
  server = await startTestServer();
  engagementId = (await createEngagement(server.api, "merge")).id;
});
afterAll(async () => server?.close());

async function importFile(filename: string, data: string | Uint8Array, engagement = engagementId): Promise<string> {
  const response = await postMultipart(server.url, server.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId: engagement } },
    { name: "file", filename, data },
  ]);
  expect(response.status).toBe(200);
  return response.body.id;
}

async function text(fileId: string): Promise<string> {
  const response = await fetch(`${server.url}/api/v1/file-manager/${fileId}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(response.status).toBe(200);
  return response.text();
}

describe("merge transform", () => {
  it("builds one file from column selections of several files, as an async job targeting the new file", async () => {
    const january = await importFile("january.csv", 'date,account,amount,memo\n2024-01-03,1000,12.50,"rent, office"\n2024-01-09,2000,-3,plain\n');
    const february = await importFile("february.csv", "Konto;Datum;Betrag\n3000;2024-02-01;7\n\n4000;2024-02-11;\"8;5\"\n");
    const started = await server.api.post("/file-manager/transform/merge", {
      engagementId,
      fileColumnMappings: { [january]: [0, 1, 2], [february]: [1, 0, 2] },
      outputFileName: "q1.csv",
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_TRANSFORMATION_JOB", entityType: "FILE_MANAGER_FILE", status: "IN_PROGRESS" });
    const output = await server.api.get(`/file-manager/${started.body.entityId}`);
    expect(output.status).toBe(200);
    expect(output.body).toMatchObject({ type: "FILE", name: "q1", extension: "csv", originalName: "q1.csv", engagementId });

    expect((await awaitJob(server.api, started.body.id)).status).toBe("COMPLETE");
    expect(await text(started.body.entityId)).toBe(
      ["date,account,amount", "2024-01-03,1000,12.50", "2024-01-09,2000,-3", "2024-02-01,3000,7", "2024-02-11,4000,8;5", ""].join("\r\n"),
    );
  });

  it("reads each file as its file info describes it: latin-1 with a title above the header, UTF-16LE with a byte order mark", async () => {
    const latin1 = await importFile("kunden.csv", iconv.encode("Kundenliste Müller GmbH\n\nName;Ort\nMüller;Köln\n", "latin1"));
    const utf16 = await importFile("clients.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("Kunde\tStadt\r\nGarçon\tZürich\r\n", "utf16le")]));
    for (const id of [latin1, utf16]) {
      const fileInfoId = (await server.api.get(`/file-manager/${id}`)).body.fileInfoId;
      await waitFor(async () => ((await server.api.get(`/file-info/${fileInfoId}`)).body.status === "COMPLETE" ? true : undefined), `file info of ${id}`);
    }
    const started = await server.api.post("/file-manager/transform/merge", { engagementId, fileColumnMappings: { [latin1]: [1, 0], [utf16]: [1, 0] }, outputFileName: "kunden-merged.csv" });
    expect(started.status).toBe(200);
    expect((await awaitJob(server.api, started.body.id)).status).toBe("COMPLETE");
    expect(await text(started.body.entityId)).toBe(["Ort,Name", "Köln,Müller", "Zürich,Garçon", ""].join("\r\n"));
  });

  it("validates the request: two or more files, equal column counts, indexes, ownership, output name", async () => {
    const a = await importFile("a.csv", "x,y\n1,2\n");
    const b = await importFile("b.csv", "x,y\n3,4\n");
    const foreign = await importFile("c.csv", "x,y\n5,6\n", (await createEngagement(server.api, "foreign")).id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fileColumnMappings: { [a]: [0] }, outputFileName: "m.csv" }, "fileColumnMappings"],
      [{ fileColumnMappings: { [a]: [0, 1], [b]: [0] }, outputFileName: "m.csv" }, "fileColumnMappings"],
      [{ fileColumnMappings: { [a]: [0], [b]: [-1] }, outputFileName: "m.csv" }, `fileColumnMappings.${b}`],
      [{ fileColumnMappings: { [a]: [0], [b]: [] }, outputFileName: "m.csv" }, `fileColumnMappings.${b}`],
      [{ fileColumnMappings: { [a]: [0], [foreign]: [0] }, outputFileName: "m.csv" }, `fileColumnMappings.${foreign}`],
      [{ fileColumnMappings: { [a]: [0], "0123456789abcdef01234567": [0] }, outputFileName: "m.csv" }, "fileColumnMappings.0123456789abcdef01234567"],
      [{ fileColumnMappings: { [a]: [0], [b]: [0] }, outputFileName: "merged" }, "outputFileName"],
      [{ fileColumnMappings: [a, b], outputFileName: "m.csv" }, "fileColumnMappings"],
    ];
    for (const [body, identifier] of cases) {
      const response = await server.api.post("/file-manager/transform/merge", { engagementId, ...body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.problems.map((p: { identifier: string }) => p.identifier)).toContain(identifier);
    }
  });

  it("fails the job with a clear error when a column does not exist, and removes the unusable output", async () => {
    const a = await importFile("narrow.csv", "x,y\n1,2\n");
    const b = await importFile("wide.csv", "x,y,z\n1,2,3\n");
    const started = await server.api.post("/file-manager/transform/merge", { engagementId, fileColumnMappings: { [a]: [0, 5], [b]: [0, 2] }, outputFileName: "bad.csv" });
    expect(started.status).toBe(200);
    const failed = await awaitJob(server.api, started.body.id);
    expect(failed).toMatchObject({ status: "ERROR", error: `File narrow.csv (${a}) has 2 column(s); column index 5 does not exist` });
    expect((await server.api.get(`/file-manager/${started.body.entityId}`)).status).toBe(404);
  });

  it("needs api.file-manager.write to start, and api.file-manager.read to read its async result and output", async () => {
    const a = await importFile("perm-a.csv", "x,y\n1,2\n");
    const b = await importFile("perm-b.csv", "x,y\n3,4\n");
    const body = { engagementId, fileColumnMappings: { [a]: [1], [b]: [1] }, outputFileName: "perm.csv" };
    const filesBefore = (await server.api.post("/file-manager/query?size=200", { engagementId })).body.totalElements;

    const reader = await clientWithPermissions(server.api, ["api.file-manager.read", "api.engagements.read"], "merge reader");
    const denied = await reader.post("/file-manager/transform/merge", body);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0].values).toEqual(["api.file-manager.write"]);
    // Refused before anything was made: no output file, no job.
    expect((await server.api.post("/file-manager/query?size=200", { engagementId })).body.totalElements).toBe(filesBefore);
    const jobs = await server.api.post("/async-results/query?size=200", { type: "DATA_TRANSFORMATION_JOB" });
    const jobCount = jobs.body.totalElements;

    const writer = await clientWithPermissions(server.api, ["api.file-manager.write"], "merge writer");
    const started = await writer.post("/file-manager/transform/merge", body);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_TRANSFORMATION_JOB", entityType: "FILE_MANAGER_FILE" });
    expect((await server.api.post("/async-results/query?size=200", { type: "DATA_TRANSFORMATION_JOB" })).body.totalElements).toBe(jobCount + 1);
    const done = await awaitJob(server.api, started.body.id);
    expect(done.status).toBe("COMPLETE");

    // The writer started the job but may not read it or what it made.
    const result = await writer.get(`/async-results/${started.body.id}`);
    expect(result.status).toBe(403);
    expect(result.body.problems[0].values).toEqual(["api.file-manager.read"]);
    expect((await writer.post("/async-results/query", { id: { $in: [started.body.id] } })).body.content).toEqual([]);
    const output = await writer.get(`/file-manager/${done.entityId}`);
    expect(output.status).toBe(403);
    expect(output.body.problems[0].values).toEqual(["api.file-manager.read"]);
    expect((await writer.get(`/file-manager/${done.entityId}/export`)).status).toBe(403);
    // Nor may a token with unrelated read permissions.
    const infos = await clientWithPermissions(server.api, ["api.file-infos.read", "api.engagements.read"], "merge infos");
    expect((await infos.get(`/async-results/${started.body.id}`)).status).toBe(403);

    // The read permission is what it takes (the job is not the starting token's alone).
    const bytes = await reader.get(`/file-manager/${done.entityId}/export`);
    expect(bytes.status).toBe(200);
    expect(bytes.body).toBe("y\r\n2\r\n4\r\n");
    expect((await reader.get(`/async-results/${started.body.id}`)).body).toMatchObject({ id: started.body.id, status: "COMPLETE", entityId: done.entityId });
    expect((await reader.post("/async-results/query", { id: { $in: [started.body.id] } })).body.content.map((r: { id: string }) => r.id)).toEqual([started.body.id]);
    expect((await reader.get(`/file-manager/${done.entityId}`)).body).toMatchObject({ type: "FILE", originalName: "perm.csv" });
  });
});
