import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createEngagement } from "../helpers/entities.js";
import { postFormData } from "../helpers/multipart.js";

// Issue 13 point 12: multipart uploads the way a browser front end sends them, built with Node's
// own FormData and Blob (the platform's implementation, not our multipart writer). Appending a
// JSON part as `new Blob([json], {type: "application/json"})` gives it a filename ("blob"): a JSON
// part is known by its name, with or without one. Every multipart route is covered, and every
// refusal names the part and what was wrong with it.

let server: TestServer;
let engagementId: string;

beforeAll(async () => {
  server = await startTestServer();
  engagementId = (await createEngagement(server.api, "browser uploads")).id;
});
afterAll(async () => server?.close());

const jsonBlob = (value: unknown) => new Blob([typeof value === "string" ? value : JSON.stringify(value)], { type: "application/json" });
const csv = "date,account,amount\n2024-01-31,1000,12.50\n";

async function download(id: string): Promise<string> {
  const response = await fetch(`${server.url}/api/v1/file-manager/${id}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(response.status).toBe(200);
  return response.text();
}

describe("POST /file-manager/import with FormData", () => {
  const importForm = (placement: unknown, options: { jsonAsBlob?: boolean; file?: boolean } = {}) => {
    const form = new FormData();
    if (placement !== undefined) form.append("fileManagerFile", options.jsonAsBlob === false ? JSON.stringify(placement) : jsonBlob(placement));
    if (options.file !== false) form.append("file", new Blob([csv], { type: "text/csv" }), "journal.csv");
    return form;
  };

  it("accepts the JSON part as a Blob (with the filename the browser gives it) and as a plain field", async () => {
    for (const jsonAsBlob of [true, false]) {
      const name = jsonAsBlob ? "from-blob" : "from-field";
      const response = await postFormData(server.url, server.token, "/file-manager/import", importForm({ engagementId, name }, { jsonAsBlob }));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toMatchObject({ engagementId, name, extension: "csv", originalName: "journal.csv", type: "FILE" });
      expect(await download(response.body.id)).toBe(csv);
    }
  });

  it("names the part and what is wrong with it", async () => {
    const cases: Array<[string, FormData, string, RegExp]> = [
      ["missing JSON part", importForm(undefined), "fileManagerFile", /Part fileManagerFile \(a JSON object\) is missing/],
      ["JSON part not JSON", importForm("{engagementId:"), "fileManagerFile", /Part fileManagerFile is not valid JSON/],
      ["JSON part an array", importForm([1]), "fileManagerFile", /Part fileManagerFile must be a JSON object/],
      ["missing file", importForm({ engagementId, name: "x" }, { file: false }), "file", /Part file \(the file\) is missing/],
    ];
    const twice = importForm({ engagementId, name: "x" });
    twice.append("fileManagerFile", jsonBlob({ engagementId, name: "y" }));
    cases.push(["JSON part twice", twice, "fileManagerFile", /Part fileManagerFile was sent twice/]);
    const unknown = importForm({ engagementId, name: "x" });
    unknown.append("metadata", jsonBlob({}));
    cases.push(["unknown part", unknown, "metadata", /Unknown part metadata; expected the parts fileManagerFile \(JSON\), file \(the file\)/]);
    const fileAsField = new FormData();
    fileAsField.append("fileManagerFile", jsonBlob({ engagementId, name: "x" }));
    fileAsField.append("file", csv);
    cases.push(["file without filename", fileAsField, "file", /Part file must be a file part \(sent with a filename\)/]);
    const badField = importForm({ engagementId, name: "x", extra: 1 });
    cases.push(["unknown key in the JSON part", badField, "fileManagerFile.extra", /extra/]);

    for (const [what, form, identifier, reason] of cases) {
      const response = await postFormData(server.url, server.token, "/file-manager/import", form);
      expect(response.status, what).toBe(400);
      expect(response.body.problems[0].identifier, what).toBe(identifier);
      expect(response.body.problems[0].reason, what).toMatch(reason);
    }
  });
});

describe("POST /chunked-files/{id}/part with FormData", () => {
  const partForm = (part: unknown, bytes: string | undefined, name = "ledger.csv") => {
    const form = new FormData();
    if (part !== undefined) form.append("chunkedFilePart", jsonBlob(part));
    if (bytes !== undefined) form.append("fileChunk", new Blob([bytes]), name);
    return form;
  };

  it("accepts the JSON part as a Blob, and the assembled file is the parts' bytes", async () => {
    const chunked = await server.api.post("/chunked-files", { name: "ledger.csv", size: csv.length });
    expect(chunked.status).toBe(200);
    const cut = 20;
    const first = await postFormData(server.url, server.token, `/chunked-files/${chunked.body.id}/part`, partForm({ offset: 0, size: cut }, csv.slice(0, cut)));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await postFormData(server.url, server.token, `/chunked-files/${chunked.body.id}/part`, partForm({ offset: cut, size: csv.length - cut }, csv.slice(cut)));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.chunkedFileParts).toEqual([{ offset: 0, size: cut }, { offset: cut, size: csv.length - cut }]);
    const file = await server.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: chunked.body.id, engagementId, name: "assembled" });
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    expect(await download(file.body.id)).toBe(csv);
  });

  it("names the part and what is wrong with it", async () => {
    const chunked = await server.api.post("/chunked-files", { name: "ledger.csv", size: 100 });
    const path = `/chunked-files/${chunked.body.id}/part`;
    const cases: Array<[string, FormData, string, RegExp]> = [
      ["missing JSON part", partForm(undefined, "abc"), "chunkedFilePart", /Part chunkedFilePart \(a JSON object\) is missing/],
      ["JSON part not JSON", partForm("offset=0", "abc"), "chunkedFilePart", /Part chunkedFilePart is not valid JSON/],
      ["missing bytes", partForm({ offset: 0, size: 3 }, undefined), "fileChunk", /Part fileChunk \(the file\) is missing/],
      ["wrong type in the JSON part", partForm({ offset: "zero", size: 3 }, "abc"), "chunkedFilePart.offset", /offset/],
    ];
    const unknown = partForm({ offset: 0, size: 3 }, "abc");
    unknown.append("file", new Blob(["x"]), "x.csv");
    cases.push(["unknown part", unknown, "file", /Unknown part file; expected the parts chunkedFilePart \(JSON\), fileChunk \(the file\)/]);
    for (const [what, form, identifier, reason] of cases) {
      const response = await postFormData(server.url, server.token, path, form);
      expect(response.status, what).toBe(400);
      expect(response.body.problems[0].identifier, what).toBe(identifier);
      expect(response.body.problems[0].reason, what).toMatch(reason);
    }
  });
});
