import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analysisFixture, createSource, uploadFile, type SourceFixture } from "../helpers/analysis-sources.js";
import { awaitJob, waitFor } from "../helpers/entities.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { expectWellFormedAnswer, fuzzParameters, fuzzTimeout, rawRequest } from "../helpers/fuzz.js";
import { postMultipart } from "../helpers/multipart.js";

// Multipart uploads with missing parts, parts in the wrong order, huge part headers, truncated
// bodies; and CSV files of every awkward shape (ragged rows, quotes, delimiters, line endings,
// BOMs, encodings): never a 5xx, never a hang, nothing staged left behind, every job finishing
// with COMPLETE or an error that names its cause.
let server: TestServer;
let fixture: SourceFixture;
let chunkedId: string;
beforeAll(async () => {
  server = await startTestServer({ ipRateLimit: 1_000_000 });
  fixture = await analysisFixture(server, "Upload fuzz");
  chunkedId = (await server.api.post("/chunked-files", { name: "fuzz.bin", size: 64 })).body.id;
});
afterAll(async () => server?.close());

type PartKind = "json" | "badJson" | "file" | "unknown" | "jsonAsFile" | "hugeHeader" | "noName" | "noDisposition";

function part(boundary: string, kind: PartKind, jsonName: string, json: unknown): Buffer {
  const head = (headers: string[]) => Buffer.from(`--${boundary}\r\n${headers.join("\r\n")}\r\n\r\n`);
  switch (kind) {
    case "json":
      return Buffer.concat([head([`Content-Disposition: form-data; name="${jsonName}"`, "Content-Type: application/json"]), Buffer.from(JSON.stringify(json)), Buffer.from("\r\n")]);
    case "badJson":
      return Buffer.concat([head([`Content-Disposition: form-data; name="${jsonName}"`]), Buffer.from('{"engagementId": '), Buffer.from("\r\n")]);
    case "file":
      return Buffer.concat([head(['Content-Disposition: form-data; name="file"; filename="../../../etc/x.csv"', "Content-Type: text/csv"]), Buffer.from("a,b\n1,2\n"), Buffer.from("\r\n")]);
    case "unknown":
      return Buffer.concat([head(['Content-Disposition: form-data; name="surprise"']), Buffer.from("x\r\n")]);
    case "jsonAsFile":
      return Buffer.concat([head([`Content-Disposition: form-data; name="${jsonName}"; filename="part.json"`]), Buffer.from(JSON.stringify(json)), Buffer.from("\r\n")]);
    case "hugeHeader":
      return Buffer.concat([head([`Content-Disposition: form-data; name="${jsonName}"`, `X-Padding: ${"p".repeat(200_000)}`]), Buffer.from("{}\r\n")]);
    case "noName":
      return Buffer.concat([head(["Content-Disposition: form-data"]), Buffer.from("{}\r\n")]);
    case "noDisposition":
      return Buffer.concat([head(["Content-Type: application/json"]), Buffer.from("{}\r\n")]);
  }
}

function stagedUploads(): string[] {
  const dir = join(server.dataDir, "files", "uploads");
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("multipart uploads", () => {
  it("answers missing, duplicated, reordered, oversized and truncated parts with a 4xx and stages nothing", async () => {
    const kinds: PartKind[] = ["json", "badJson", "file", "unknown", "jsonAsFile", "hugeHeader", "noName", "noDisposition"];
    const targets = [
      { path: "/api/v1/file-manager/import", jsonName: "fileManagerFile", json: fc.record({ engagementId: fc.constantFrom(fixture.engagementId, "nope", "\u0000"), name: fc.constantFrom("x.csv", "../../etc/passwd", "/abs/path", "a\u0000b", "con\u0007trol", "") }) },
      { path: `/api/v1/chunked-files/${chunkedId}/part`, jsonName: "chunkedFilePart", json: fc.record({ offset: fc.constantFrom(0, -1, 8, 64, 2 ** 60, "0"), size: fc.constantFrom(8, 0, -5, 100, 1e20) }) },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets.keys()).chain((index) => fc.tuple(fc.constant(targets[index]), targets[index].json)),
        fc.array(fc.constantFrom(...kinds), { maxLength: 4 }),
        fc.constantFrom("end", "truncated", "no-closing-boundary", "wrong-boundary", "not-multipart"),
        async ([target, json], parts, ending) => {
          const boundary = "fuzzBoundary42";
          const body = Buffer.concat([...parts.map((kind) => part(boundary, kind, target.jsonName, json)), Buffer.from(`--${boundary}--\r\n`)]);
          const sent = ending === "truncated" ? body.subarray(0, Math.floor(body.length / 2)) : ending === "no-closing-boundary" ? body.subarray(0, body.length - boundary.length - 6) : body;
          const contentType = ending === "wrong-boundary" ? "multipart/form-data; boundary=other" : ending === "not-multipart" ? "application/json" : `multipart/form-data; boundary=${boundary}`;
          const response = await rawRequest(server.url, "POST", target.path, { headers: { authorization: `Bearer ${server.token}`, "content-type": contentType }, body: sent });
          expectWellFormedAnswer(response, `${target.path} [${parts.join(", ")}] ${ending} ${JSON.stringify(json)}`);
          if (response.status === 200 && target.path.includes("file-manager")) {
            // Whatever name the client sent, the stored file sits under its own id in storage.
            expect(response.body.name).not.toMatch(/[\u0000-\u001f]/);
          }
        },
      ),
      fuzzParameters(80),
    );
    await waitFor(async () => (stagedUploads().length === 0 ? true : undefined), "staged uploads to be removed", 5000);
  }, fuzzTimeout(60_000, 80));
});

describe("file names with path traversal", () => {
  it("stay display names: the bytes are stored under the file's id, nothing is written outside storage", async () => {
    const hostile = ["../../../outside-a.csv", "/tmp/outside-b.csv", "..\\..\\outside-c.csv"];
    for (const name of hostile) {
      const response = await postMultipart(server.url, server.token, "/file-manager/import", [
        { name: "fileManagerFile", json: { engagementId: fixture.engagementId, name } },
        { name: "file", filename: name, data: `bytes of ${name}` },
      ]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.name).toBe(name);
      expect(readdirSync(join(server.dataDir, "files", "files"))).toContain(response.body.id);
      const download = await fetch(`${server.url}/api/v1/file-manager/${response.body.id}/export`, { headers: { authorization: `Bearer ${server.token}` } });
      expect(await download.text()).toBe(`bytes of ${name}`);
    }
    for (const dir of [server.dataDir, join(server.dataDir, ".."), join(server.dataDir, "files"), "/tmp"]) {
      expect(readdirSync(dir).filter((f) => f.startsWith("outside-")), dir).toEqual([]);
    }
  });
});

/** CSV text of awkward shape, and how it is encoded into bytes. */
const cell = fc.oneof(
  fc.constantFrom("", "1000", "-12.50", "1,234.56", "(99.00)", "2023-03-31", "31.03.2023", "03/31/2023", "Ü ß é", "a\"b", '"quoted"', "multi\nline", "tab\there", "=SUM(A1)", "\u0000", " padded "),
  fc.string({ maxLength: 12 }),
);
const csvArbitrary = fc.record({
  header: fc.array(fc.constantFrom("Date", "Account", "Debit", "Credit", "Amount", "Description", "Reference", "", "Date"), { minLength: 0, maxLength: 7 }),
  rows: fc.array(fc.array(cell, { minLength: 0, maxLength: 9 }), { maxLength: 25 }),
  delimiter: fc.constantFrom(",", ";", "\t", "|"),
  lineEnd: fc.constantFrom("\n", "\r\n", "\r"),
  quoteAll: fc.boolean(),
  bom: fc.constantFrom("none", "utf8", "utf16le"),
  latin1: fc.boolean(),
  brokenQuote: fc.boolean(),
});

type Csv = typeof csvArbitrary extends fc.Arbitrary<infer T> ? T : never;
function csvBytes(csv: Csv): Buffer {
  const quote = (value: string) => (csv.quoteAll || /["\n\r,;\t|]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  const lines = [csv.header, ...csv.rows].map((row) => row.map(quote).join(csv.delimiter));
  let text = lines.join(csv.lineEnd) + (csv.rows.length > 0 ? csv.lineEnd : "");
  if (csv.brokenQuote) text += `"unterminated${csv.delimiter}value`;
  if (csv.bom === "utf16le") return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
  const body = csv.latin1 ? Buffer.from(text, "latin1") : Buffer.from(text, "utf8");
  return csv.bom === "utf8" ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

describe("CSV content", () => {
  it("gives every uploaded file a file info that ends COMPLETE or FAILED", async () => {
    await fc.assert(
      fc.asyncProperty(csvArbitrary, async (csv) => {
        const fileId = await uploadFile(server, fixture.engagementId, "fuzz.csv", csvBytes(csv));
        const file = (await server.api.get(`/file-manager/${fileId}`)).body;
        const info = await waitFor(async () => {
          const read = await server.api.get(`/file-info/${file.fileInfoId}`);
          expect(read.status, JSON.stringify(read.body)).toBe(200);
          return read.body.status === "PENDING" ? undefined : read.body;
        }, "the file info to be computed", 20_000);
        expect(["COMPLETE", "FAILED"]).toContain(info.status);
      }),
      fuzzParameters(20),
    );
  }, fuzzTimeout(90_000, 20));

  it("walks an analysis source over each to COMPLETED, or fails it with a cause (no unexpected error, nothing stuck)", async () => {
    await fc.assert(
      fc.asyncProperty(csvArbitrary, async (csv) => {
        const bytes = csvBytes(csv);
        const fileId = await uploadFile(server, fixture.engagementId, "fuzz.csv", bytes);
        const started = await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" });
        const job = await awaitJob(server.api, started.id, 30_000);
        const context = `${JSON.stringify(bytes.toString("latin1").slice(0, 400))} -> ${JSON.stringify(job)}`;
        expect(["COMPLETE", "ERROR"], context).toContain(job.status);
        if (job.status === "ERROR") expect(job.error, context).not.toMatch(/Unexpected error/);
        const source = (await server.api.get(`/analysis-sources/${job.entityId}`)).body;
        expect(source.workflowState, context).toBe(job.status === "COMPLETE" ? "COMPLETED" : "FAILED");
      }),
      fuzzParameters(8),
    );
  }, fuzzTimeout(120_000, 8));
});
