import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { clientWithPermissions, createEngagement } from "../../../test/helpers/entities.js";
import { patternBytes, postMultipart, type Part } from "../../../test/helpers/multipart.js";
import { registerFileDeleteGuard } from "./file-manager.guards.js";

let server: TestServer;
let small: TestServer; // upload limit of 1 MiB, to exercise the limit without 8 GiB bodies
let engagementId: string;

const blockedFiles = new Set<string>();
registerFileDeleteGuard(async (_tx, fileIds) => new Map(fileIds.filter((id) => blockedFiles.has(id)).map((id) => [id, "it is used by a running analysis source"])));

beforeAll(async () => {
  [server, small] = await Promise.all([startTestServer(), startTestServer({ maxUploadBytes: 1024 * 1024 })]);
  engagementId = (await createEngagement(server.api, "files")).id;
});
afterAll(async () => Promise.all([server?.close(), small?.close()]));

function importParts(placement: Record<string, unknown>, filename: string, data: Part extends infer P ? (P extends { data: infer D } ? D : never) : never, contentType = "text/csv"): Part[] {
  return [
    { name: "fileManagerFile", json: placement },
    { name: "file", filename, contentType, data },
  ];
}

function upload(target: TestServer, parts: Part[], token = target.token) {
  return postMultipart(target.url, token, "/file-manager/import", parts);
}

async function download(id: string, token = server.token) {
  const response = await fetch(`${server.url}/api/v1/file-manager/${id}/export`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Every regular file left in a storage directory (staging, temp, files). */
function storedFiles(target: TestServer, sub: string): string[] {
  const dir = join(target.dataDir, "files", sub);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

describe("directories", () => {
  it("creates directories at the top level and inside others", async () => {
    const top = await server.api.post("/file-manager", { engagementId, name: "Ledgers" });
    expect(top.status).toBe(200);
    expect(top.body).toMatchObject({ engagementId, name: "Ledgers", type: "DIRECTORY", version: 0 });
    expect(top.body).not.toHaveProperty("parentFileManagerEntityId");
    const inner = await server.api.post("/file-manager", { engagementId, name: "2024", parentFileManagerEntityId: top.body.id });
    expect(inner.body).toMatchObject({ parentFileManagerEntityId: top.body.id, type: "DIRECTORY" });
    expect((await server.api.get(`/file-manager/${inner.body.id}`)).body).toEqual(inner.body);
  });

  it("refuses an unknown engagement, a file as parent and another engagement's directory", async () => {
    const unknown = await server.api.post("/file-manager", { engagementId: "0123456789abcdef01234567", name: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("engagementId");
    const other = await createEngagement(server.api, "other");
    const foreign = await server.api.post("/file-manager", { engagementId: other.id, name: "theirs" });
    const crossing = await server.api.post("/file-manager", { engagementId, name: "x", parentFileManagerEntityId: foreign.body.id });
    expect(crossing.status).toBe(400);
    expect(crossing.body.problems[0].identifier).toBe("parentFileManagerEntityId");
    const file = await upload(server, importParts({ engagementId }, "a.csv", "a\n1\n"));
    const underFile = await server.api.post("/file-manager", { engagementId, name: "x", parentFileManagerEntityId: file.body.id });
    expect(underFile.status).toBe(400);
    expect(underFile.body.title).toMatch(/not a directory/);
    expect((await server.api.post("/file-manager", { engagementId, name: " " })).status).toBe(400);
  });
});

describe("import and download", () => {
  it("imports a multipart upload as a FILE (name = stem, extension, originalName) and serves the same bytes", async () => {
    const directory = await server.api.post("/file-manager", { engagementId, name: "Imports" });
    const content = "account;amount\n1000;12,50\n2000;-3\n";
    const response = await upload(server, importParts({ engagementId, name: "journal", parentFileManagerEntityId: directory.body.id }, "journal.csv", content));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ engagementId, parentFileManagerEntityId: directory.body.id, type: "FILE", name: "journal", extension: "csv", originalName: "journal.csv", status: [] });
    expect(response.body.fileInfoId).toMatch(/^[0-9a-f]{24}$/);
    expect((await server.api.get(`/file-manager/${response.body.id}`)).body).toEqual(response.body);

    const bytes = await download(response.body.id);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("application/octet-stream");
    expect(bytes.headers.get("content-disposition")).toContain('filename="journal.csv"');
    expect(bytes.bytes.toString()).toBe(content);
    expect(storedFiles(server, "uploads")).toEqual([]);
  });

  it("takes the name from the filename when the JSON part has none, and streams a binary file intact", async () => {
    const size = 3 * 1024 * 1024 + 17;
    const response = await upload(server, importParts({ engagementId }, "archive.bin.zip", patternBytes(size), "application/zip"));
    expect(response.body).toMatchObject({ name: "archive.bin", extension: "zip", originalName: "archive.bin.zip" });
    const bytes = await download(response.body.id);
    expect(bytes.bytes.length).toBe(size);
    const pieces: Uint8Array[] = [];
    for await (const piece of patternBytes(size)) pieces.push(piece);
    const expected = Buffer.concat(pieces);
    expect(bytes.bytes.equals(expected)).toBe(true);
  });

  it("keeps a UTF-8 file name as sent, in the entity and in the download's Content-Disposition", async () => {
    const response = await upload(server, importParts({ engagementId }, "Buchungsjournal März €.csv", "a,b\n1,2\n"));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: "Buchungsjournal März €", extension: "csv", originalName: "Buchungsjournal März €.csv" });
    const file = await download(response.body.id);
    expect(file.headers.get("content-disposition")).toContain(`filename*=UTF-8''${encodeURIComponent("Buchungsjournal März €.csv")}`);
  });

  it("accepts the JSON part as a plain form field too", async () => {
    const form = new FormData();
    form.append("fileManagerFile", JSON.stringify({ engagementId, name: "form" }));
    form.append("file", new Blob(["x,y\n1,2\n"], { type: "text/csv" }), "form.csv");
    const response = await fetch(`${server.url}/api/v1/file-manager/import`, { method: "POST", body: form, headers: { authorization: `Bearer ${server.token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: "form", extension: "csv" });
  });

  it("answers 400 for a missing file part, an unknown part, bad JSON, a bad placement and a non-multipart body", async () => {
    const missing = await upload(server, [{ name: "fileManagerFile", json: { engagementId } }]);
    expect(missing.status).toBe(400);
    expect(missing.body.problems[0].identifier).toBe("file");
    const unknown = await upload(server, [...importParts({ engagementId }, "a.csv", "a"), { name: "colour", json: "red" }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("colour");
    const badJson = await postMultipart(server.url, server.token, "/file-manager/import", [{ name: "file", filename: "a.csv", data: "a" }, { name: "fileManagerFile", json: undefined }]);
    expect(badJson.status).toBe(400);
    const noEngagement = await upload(server, importParts({ name: "x" }, "a.csv", "a"));
    expect(noEngagement.status).toBe(400);
    expect(noEngagement.body.problems[0].identifier).toBe("fileManagerFile.engagementId");
    const extraKey = await upload(server, importParts({ engagementId, colour: "red" }, "a.csv", "a"));
    expect(extraKey.status).toBe(400);
    expect(extraKey.body.problems[0].identifier).toBe("fileManagerFile.colour");
    const json = await server.api.post("/file-manager/import", { engagementId });
    expect(json.status).toBe(400);
    expect(json.body.title).toMatch(/multipart\/form-data/);
    expect(storedFiles(server, "uploads")).toEqual([]);
  });

  it("checks the token before accepting bytes: 401 without a token, 403 without api.file-manager.write", async () => {
    const anonymous = await upload(server, importParts({ engagementId }, "a.csv", "a"), "");
    expect(anonymous.status).toBe(401);
    const reader = await clientWithPermissions(server.api, ["api.file-manager.read"], "reader");
    const denied = await upload(server, importParts({ engagementId }, "a.csv", "a"), reader.token);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0].values).toEqual(["api.file-manager.write"]);
  });

  it("refuses a file above the limit with 413 and leaves nothing behind", async () => {
    const smallEngagement = await createEngagement(small.api, "limits");
    const before = (await small.api.post("/file-manager/query", { engagementId: smallEngagement.id })).body.totalElements;
    const tooBig = await upload(small, importParts({ engagementId: smallEngagement.id }, "big.csv", patternBytes(2 * 1024 * 1024)));
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.problems[0]).toMatchObject({ problemType: "ILLEGAL_ARGUMENT" });
    expect(tooBig.body.title).toMatch(/larger than the limit of 1048576 bytes/);
    expect(storedFiles(small, "")).toEqual([]);
    expect((await small.api.post("/file-manager/query", { engagementId: smallEngagement.id })).body.totalElements).toBe(before);
    const justFits = await upload(small, importParts({ engagementId: smallEngagement.id }, "fits.csv", patternBytes(1024 * 1024)));
    expect(justFits.status).toBe(200);
  });

  it("refuses at once a request declaring more than 8 GiB, before reading it", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/v1/file-manager/import`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}`, "content-type": "multipart/form-data; boundary=x", "content-length": String(9 * 1024 ** 3) },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write("--x\r\n");
    });
    expect(status).toBe(413);
  });
});

describe("rename, move and delete", () => {
  it("renames and moves with the latest version; a stale version is refused", async () => {
    const a = await server.api.post("/file-manager", { engagementId, name: "A" });
    const b = await server.api.post("/file-manager", { engagementId, name: "B" });
    const file = await upload(server, importParts({ engagementId, parentFileManagerEntityId: a.body.id }, "t.csv", "t"));
    const renamed = await server.api.put(`/file-manager/${file.body.id}`, { ...file.body, name: "renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "renamed", version: 1, extension: "csv", status: ["MODIFIED"], parentFileManagerEntityId: a.body.id });
    const moved = await server.api.put(`/file-manager/${file.body.id}`, { parentFileManagerEntityId: b.body.id, version: 1 });
    expect(moved.body).toMatchObject({ parentFileManagerEntityId: b.body.id, version: 2, name: "renamed" });
    const stale = await server.api.put(`/file-manager/${file.body.id}`, { name: "late", version: 1 });
    expect(stale.status).toBe(409);
    expect((await server.api.get(`/file-manager/${file.body.id}`)).body.name).toBe("renamed");
    const retype = await server.api.put(`/file-manager/${file.body.id}`, { type: "DIRECTORY", version: 2 });
    expect(retype.status).toBe(400);
    expect(retype.body.problems[0].identifier).toBe("type");
  });

  it("does not move a directory into itself or below itself", async () => {
    const outer = await server.api.post("/file-manager", { engagementId, name: "outer" });
    const inner = await server.api.post("/file-manager", { engagementId, name: "inner", parentFileManagerEntityId: outer.body.id });
    const loop = await server.api.put(`/file-manager/${outer.body.id}`, { parentFileManagerEntityId: inner.body.id, version: 0 });
    expect(loop.status).toBe(400);
    const self = await server.api.put(`/file-manager/${outer.body.id}`, { parentFileManagerEntityId: outer.body.id, version: 0 });
    expect(self.status).toBe(400);
  });

  it("deletes a directory with its contents and their bytes; needs api.file-manager.delete", async () => {
    const top = await server.api.post("/file-manager", { engagementId, name: "to delete" });
    const sub = await server.api.post("/file-manager", { engagementId, name: "sub", parentFileManagerEntityId: top.body.id });
    const f1 = await upload(server, importParts({ engagementId, parentFileManagerEntityId: top.body.id }, "1.csv", "1"));
    const f2 = await upload(server, importParts({ engagementId, parentFileManagerEntityId: sub.body.id }, "2.csv", "2"));
    expect(storedFiles(server, "files")).toEqual(expect.arrayContaining([f1.body.id, f2.body.id]));

    const writer = await clientWithPermissions(server.api, ["api.file-manager.read", "api.file-manager.write"], "no delete");
    const denied = await writer.delete(`/file-manager/${top.body.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0].values).toEqual(["api.file-manager.delete"]);

    const deleted = await server.api.delete(`/file-manager/${top.body.id}`);
    expect(deleted.status).toBe(204);
    for (const id of [top.body.id, sub.body.id, f1.body.id, f2.body.id]) expect((await server.api.get(`/file-manager/${id}`)).status).toBe(404);
    expect(storedFiles(server, "files")).not.toContain(f1.body.id);
    expect(storedFiles(server, "files")).not.toContain(f2.body.id);
    expect((await server.api.delete(`/file-manager/${top.body.id}`)).status).toBe(404);
  });

  it("refuses to delete a file another module reports in use, also through its directory", async () => {
    const dir = await server.api.post("/file-manager", { engagementId, name: "in use" });
    const file = await upload(server, importParts({ engagementId, parentFileManagerEntityId: dir.body.id }, "used.csv", "u"));
    blockedFiles.add(file.body.id);
    for (const id of [file.body.id, dir.body.id]) {
      const refused = await server.api.delete(`/file-manager/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.problems[0]).toMatchObject({ problemType: "CANNOT_DELETE", entityId: file.body.id });
      expect(refused.body.title).toMatch(/running analysis source/);
    }
    expect((await download(file.body.id)).status).toBe(200);
    blockedFiles.delete(file.body.id);
    expect((await server.api.delete(`/file-manager/${dir.body.id}`)).status).toBe(204);
  });

  it("answers 409 for downloading or deleting a file a job is still producing", async () => {
    const file = await upload(server, importParts({ engagementId }, "pending.csv", "p"));
    await server.running.app.pool.query("UPDATE file_manager_entity SET ready = false WHERE id = $1", [file.body.id]);
    const exported = await server.api.get(`/file-manager/${file.body.id}/export`);
    expect(exported.status).toBe(409);
    expect(exported.body.title).toMatch(/still being produced/);
    const deleted = await server.api.delete(`/file-manager/${file.body.id}`);
    expect(deleted.status).toBe(409);
    expect(deleted.body.problems[0]).toMatchObject({ problemType: "CANNOT_DELETE" });
    await server.running.app.pool.query("UPDATE file_manager_entity SET ready = true WHERE id = $1", [file.body.id]);
    expect((await server.api.delete(`/file-manager/${file.body.id}`)).status).toBe(204);
  });

  it("answers 400 when exporting a directory", async () => {
    const dir = await server.api.post("/file-manager", { engagementId, name: "not a file" });
    const response = await server.api.get(`/file-manager/${dir.body.id}/export`);
    expect(response.status).toBe(400);
  });
});

describe("query", () => {
  it("lists directories and files together and filters on type, name and parent", async () => {
    const own = await createEngagement(server.api, "query");
    const dir = await server.api.post("/file-manager", { engagementId: own.id, name: "Docs" });
    const file = await upload(server, importParts({ engagementId: own.id, parentFileManagerEntityId: dir.body.id }, "Report.csv", "r"));
    const all = await server.api.post("/file-manager/query", { engagementId: own.id });
    expect(all.status).toBe(200);
    expect(all.body.totalElements).toBe(2);
    expect(all.body.content.map((e: { type: string }) => e.type).sort()).toEqual(["DIRECTORY", "FILE"]);
    const fileItem = all.body.content.find((e: { type: string }) => e.type === "FILE");
    expect(fileItem).toMatchObject({ id: file.body.id, extension: "csv", originalName: "Report.csv" });
    expect(all.body.content.find((e: { type: string }) => e.type === "DIRECTORY")).not.toHaveProperty("extension");
    const files = await server.api.post("/file-manager/query", { $and: [{ engagementId: own.id }, { type: "FILE" }, { name: { $iprefix: "rep" } }] });
    expect(files.body.content.map((e: { id: string }) => e.id)).toEqual([file.body.id]);
    const children = await server.api.post("/file-manager/query", { parentFileManagerEntityId: dir.body.id });
    expect(children.body.content.map((e: { id: string }) => e.id)).toEqual([file.body.id]);
  });

  it("serves the same over GraphQL, directories and files by their own types", async () => {
    const own = await createEngagement(server.api, "graphql files");
    await server.api.post("/file-manager", { engagementId: own.id, name: "D" });
    await upload(server, importParts({ engagementId: own.id }, "f.csv", "f"));
    const result = await server.gql(
      `query ($filter: JSON) { fileManagerEntities(filter: $filter) { totalElements content { __typename name type ... on FileManagerFile { extension } } } }`,
      { filter: { engagementId: own.id } },
    );
    expect(result.body.errors).toBeUndefined();
    const content = result.body.data.fileManagerEntities.content;
    expect(content).toEqual(expect.arrayContaining([{ __typename: "FileManagerDirectory", name: "D", type: "DIRECTORY" }, { __typename: "FileManagerFile", name: "f", type: "FILE", extension: "csv" }]));
  });
});
