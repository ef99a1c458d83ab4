import { rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";
import { holdJob } from "../../../test/fixtures/test-jobs.js";
import { inTransaction } from "../../events/outbox.js";
import { newId } from "../../core/ids.js";
import { xlsOf, xlsxOf } from "../../../test/ingestion/workbooks.js";
import { startJob } from "../../jobs/index.js";
import { createFileRow, createWithEarlyInspection, fileObjectKey } from "../file-manager/file-manager.service.js";
import type { RequestContext } from "../../graphql/context.js";
import type { UploadObserver } from "../../app-types.js";
import type { FileInspection } from "./file-inspection.js";

let server: TestServer;
let engagementId: string;

beforeAll(async () => {
  // One job at a time, so a test can keep file info jobs waiting behind another job.
  server = await startTestServer({ jobConcurrency: 1 });
  engagementId = (await createEngagement(server.api, "file infos")).id;
});
afterAll(async () => server?.close());

async function importFile(filename: string, data: string | Uint8Array) {
  const response = await postMultipart(server.url, server.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId } },
    { name: "file", filename, data },
  ]);
  expect(response.status).toBe(200);
  return response.body as { id: string; fileInfoId: string };
}

async function settledInfo(id: string) {
  return waitFor(async () => {
    const response = await server.api.get(`/file-info/${id}`);
    return response.body.status === "PENDING" ? undefined : response.body;
  }, `file info ${id}`);
}

/**
 * A file as a job produces one (a merge, an export into the file manager): bytes written by the
 * server, then the row, whose file info the file info job computes afterwards.
 */
async function jobProducedFile(filename: string, data: string | Uint8Array) {
  const app = server.running.app;
  const user = (await server.api.get("/users/current")).body;
  const id = newId();
  await app.storage.write(fileObjectKey(id), Readable.from([Buffer.from(data)]));
  const [stem, extension] = filename.split(".");
  return inTransaction(app, (tx, emit) =>
    createFileRow(tx, emit, { id, engagementId, name: stem, extension, originalName: filename, size: Buffer.byteLength(data) }, { userId: user.id, userName: user.userName }),
  ) as Promise<{ id: string; fileInfoId: string }>;
}

/** Occupies the only job slot for `ms`, so file info jobs queued meanwhile stay PENDING. Returns its async result id. */
async function occupyJobSlot(ms: number): Promise<string> {
  const app = server.running.app;
  const user = (await server.api.get("/users/current")).body;
  const started = await inTransaction(app, (tx) =>
    startJob(tx, { job: holdJob, payload: { engagementId, holdFirstAttemptMs: ms }, entityType: "ENGAGEMENT", entityId: engagementId, startedBy: { userId: user.id, userName: user.userName } }),
  );
  await waitFor(async () => ((await app.prisma.asyncResult.findUnique({ where: { id: started.id } }))!.attempts > 0 ? true : undefined), "the holding job to start");
  return started.id;
}

describe("file infos", () => {
  it("exists as soon as a file is imported and is computed by the inspector afterwards", async () => {
    const file = await importFile("accounts.csv", "account,name\n1000,Cash\n2000,Bank\n");
    const first = await server.api.get(`/file-info/${file.fileInfoId}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: file.fileInfoId, name: "accounts.csv", fileManagerFileId: file.id });
    const info = await settledInfo(file.fileInfoId);
    expect(info).toMatchObject({
      type: "TABULAR_FILE_INFO",
      delimiter: ",",
      firstLine: "account,name",
      headerRowIndex: 0,
      lastNonBlankRowIndex: 2,
      formatDetected: false,
      columnData: [
        { position: 0, columnName: "account", synthetic: false, rowSample: ["1000", "2000"], columnMetadata: { densityMetrics: { state: "PASS", count: 2, blanks: 0, density: 1 } } },
        { position: 1, columnName: "name", synthetic: false, rowSample: ["Cash", "Bank"] },
      ],
      tableMetadata: { overallDataTypeMetrics: { state: "PASS", totalRecords: 2, columnCount: 2 } },
    });
    // One snippet per line of the file: the final line break starts no empty line.
    expect(info.rowContentSnippets).toEqual([["account", "name"], ["1000", "Cash"], ["2000", "Bank"]]);
  });

  it("describes a semicolon-delimited export with its metrics: types per column, duplicate rows, unreadable dates", async () => {
    const file = await importFile("ledger.csv", "Date;Account;Amount\n01/02/2024;1000;12,50\n01/02/2024;1000;12,50\nnot a date;2000;-3,00\n");
    const info = await settledInfo(file.fileInfoId);
    expect(info).toMatchObject({ type: "TABULAR_FILE_INFO", delimiter: ";", headerRowIndex: 0, lastNonBlankRowIndex: 3 });
    expect(info.tableMetadata.overallDataTypeMetrics).toMatchObject({ state: "PASS", totalRecords: 3 });
    expect(info.tableMetadata.duplicateRows).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 2, values: ["01/02/2024", "1000", "12,50"] }] });
    const [date, account, amount] = info.columnData;
    expect(date).toMatchObject({ columnName: "Date", columnMetadata: { dataTypeMetrics: { dominantType: "DATE", detectedTypes: ["TEXT", "DATE"], typeCounts: { DATE: 2, TEXT: 1, NUMBER: 0 } } } });
    expect(account.columnMetadata.dataTypeMetrics.dominantType).toBe("NUMBER");
    expect(amount.columnMetadata.dataTypeMetrics.dominantType).toBe("NUMBER");
    // The wire reference's metric names and shapes, each with state and {row, column, data} previews.
    const tableNames = ["cellLengthMetrics", "densityMetrics", "inconsistentDateMetrics", "nullValueMetrics", "numericColumnMetrics", "overallDataTypeMetrics", "scientificNotationMetrics", "sheetMetrics", "specialCharacterMetrics", "unevenColumnsMetrics"];
    for (const name of tableNames) expect(info.tableMetadata[name], name).toMatchObject({ state: expect.stringMatching(/^(PASS|WARN|FAIL)$/), dataPreviews: expect.any(Array) });
    expect(info.tableMetadata.sheetMetrics).toEqual({ state: "PASS", count: 0, sheetNames: [], validSheets: [], dataPreviews: [] });
    expect(info.tableMetadata.unevenColumnsMetrics).toMatchObject({ state: "PASS", count: 0, histogram: { "3": 3 } });
    expect(info.tableMetadata.densityMetrics).toMatchObject({ state: "PASS", count: 9, blanks: 0, density: 1 });
    expect(amount.columnMetadata.dataTypeMetrics.numericTypeDetails).toMatchObject({ sum: 22, range: { min: -3, max: 12.5 }, currencyFormat: { decimalCharacter: "," } });
    expect(date.columnMetadata.dataTypeMetrics.dateTypeDetails).toMatchObject({ unambiguousDateTimeFormats: expect.any(Array), range: { min: expect.stringMatching(/^2024-/) } });
    expect(date.columnMetadata.unparseableValues.dataPreviews).toEqual([{ row: 3, column: 0, data: "not a date" }]);
    const graphql = await server.gql(`query ($id: ID!) { fileInfo(id: $id) { ... on TabularFileInfo { rowContentSnippets tableMetadata { sheetMetrics { count sheetNames validSheets state } } columnData { columnMetadata { densityMetrics { blanks density } } } } } }`, { id: file.fileInfoId });
    expect(graphql.body.data.fileInfo.rowContentSnippets.slice(0, 2)).toEqual([["Date", "Account", "Amount"], ["01/02/2024", "1000", "12,50"]]);
    expect(graphql.body.data.fileInfo).toMatchObject({ tableMetadata: { sheetMetrics: { count: 0, sheetNames: [], validSheets: [], state: "PASS" } } });
  });

  it("describes a workbook's sheet: sheetMetrics name every sheet and the valid ones; rows come from the first valid sheet (WARN naming the others)", async () => {
    const ledger = (first: string) => [
      ["Date", "Account", "Amount"],
      [new Date("2024-01-15T00:00:00Z"), first, 12.5],
      [new Date("2024-02-29T00:00:00Z"), "2000", -3],
    ];
    const sheets = [
      { name: "Cover", rows: [["Trial balance workpapers"], ["Prepared by: JS"]] },
      { name: "GL 2024", rows: ledger("1000") },
      { name: "GL 2023", rows: ledger("1100") },
    ];
    for (const [name, bytes] of [["book.xlsx", await xlsxOf(sheets)], ["book.xls", await xlsOf(sheets)]] as const) {
      const file = await importFile(name, new Uint8Array(bytes));
      const info = await settledInfo(file.fileInfoId);
      expect(info, name).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", headerRowIndex: 0, lastNonBlankRowIndex: 2 });
      // A workbook has no text encoding or delimiter.
      expect(info.delimiter).toBeUndefined();
      expect(info.tableMetadata.sheetMetrics).toEqual({ state: "WARN", count: 3, sheetNames: ["Cover", "GL 2024", "GL 2023"], validSheets: ["GL 2024", "GL 2023"], selectedSheet: "GL 2024", ignoredSheets: ["GL 2023"], dataPreviews: [] });
      expect(info.rowContentSnippets).toEqual([["Date", "Account", "Amount"], ["2024-01-15", "1000", "12.5"], ["2024-02-29", "2000", "-3"]]);
      const [date, account, amount] = info.columnData;
      // Dates and numbers from the cells' types, not re-read from displayed text.
      expect(date.columnMetadata.dataTypeMetrics).toMatchObject({ dominantType: "DATE", dateTypeDetails: { unambiguousDateTimeFormats: ["yyyy-MM-dd"], range: { min: "2024-01-15", max: "2024-02-29" } } });
      expect(account.rowSample).toEqual(["1000", "2000"]);
      expect(amount.columnMetadata.dataTypeMetrics.numericTypeDetails).toMatchObject({ sum: 9.5, range: { min: -3, max: 12.5 } });
    }
  });

  it("keeps non-tabular files as FILE_INFO and lets queries mix both kinds", async () => {
    const binary = await importFile("scan.pdf", "%PDF-1.4");
    const tabular = await importFile("more.csv", "a,b\n1,2\n");
    const plain = await settledInfo(binary.fileInfoId);
    expect(plain).toMatchObject({ type: "FILE_INFO", name: "scan.pdf", status: "COMPLETE" });
    expect(plain).not.toHaveProperty("columnData");
    await settledInfo(tabular.fileInfoId);
    const both = await server.api.post("/file-info/query", { id: { $in: [binary.fileInfoId, tabular.fileInfoId] } });
    expect(both.body.content.map((i: { type: string }) => i.type).sort()).toEqual(["FILE_INFO", "TABULAR_FILE_INFO"]);
    const onlyTabular = await server.api.post("/file-info/query", { $and: [{ type: "TABULAR_FILE_INFO" }, { fileManagerFileId: tabular.id }] });
    expect(onlyTabular.body.content.map((i: { id: string }) => i.id)).toEqual([tabular.fileInfoId]);
  });

  it("says PENDING while being computed, then COMPLETE (or FAILED), so clients can poll; queries filter on it", async () => {
    // Uploads are read as they arrive (next test): files produced by jobs get theirs from a job.
    const hold = await occupyJobSlot(4000);
    const tabular = await jobProducedFile("pending.csv", "a;b\n1;2\n");
    const vanished = await jobProducedFile("vanished.csv", "a;b\n1;2\n");
    // The bytes go away before the job reads them: the info can never be computed.
    rmSync(join(server.dataDir, "files", "files", vanished.id));

    const pending = await server.api.get(`/file-info/${tabular.fileInfoId}`);
    expect(pending.body).toMatchObject({ status: "PENDING", type: "FILE_INFO", version: 0 });
    const graphql = await server.gql(`query ($id: ID!) { fileInfo(id: $id) { status type } }`, { id: tabular.fileInfoId });
    expect(graphql.body.data.fileInfo).toEqual({ status: "PENDING", type: "FILE_INFO" });
    const waiting = await server.api.post("/file-info/query", { $and: [{ status: "PENDING" }, { id: { $in: [tabular.fileInfoId, vanished.fileInfoId] } }] });
    expect(waiting.body.content.map((i: { id: string }) => i.id).sort()).toEqual([tabular.fileInfoId, vanished.fileInfoId].sort());

    expect((await awaitJob(server.api, hold)).status).toBe("COMPLETE");
    const done = await settledInfo(tabular.fileInfoId);
    expect(done).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", delimiter: ";" });
    expect(done.version).toBeGreaterThan(0);
    const failed = await settledInfo(vanished.fileInfoId);
    expect(failed).toMatchObject({ status: "FAILED", type: "FILE_INFO" });
    expect(failed.version).toBeGreaterThan(0);
    expect(failed).not.toHaveProperty("columnData");
    const byStatus = await server.api.post("/file-info/query", { $and: [{ status: "FAILED" }, { fileManagerFileId: { $in: [tabular.id, vanished.id] } }] });
    expect(byStatus.body.content.map((i: { id: string }) => i.id)).toEqual([vanished.fileInfoId]);
  });

  it("is COMPLETE when an upload, a chunked file's assembly or a JSON table's merge answers (read as the bytes arrived), and the same as the file info job's", async () => {
    const app = server.running.app;
    const lines = ["Date;Account;Description;Amount"];
    for (let i = 0; i < 3000; i++) lines.push(`${String((i % 28) + 1).padStart(2, "0")}/02/2024;${1000 + (i % 37)};Line ${i % 50}, "x";${(i * 7.31).toFixed(2).replace(".", ",")}`);
    lines.splice(1500, 0, "", "bad date;9999;;12,00");
    const csv = `${lines.join("\r\n")}\r\n`;
    const hold = await occupyJobSlot(8000);

    const uploaded = await importFile("ledger.csv", csv);
    // Chunked: three parts, sent out of order.
    const bytes = Buffer.from(csv);
    const chunked = (await server.api.post("/chunked-files", { name: "chunked.csv", size: bytes.length })).body;
    for (const offset of [40_000, 0, 80_000].filter((o) => o < bytes.length)) {
      const part = bytes.subarray(offset, Math.min(bytes.length, offset + 40_000));
      const sent = await postMultipart(server.url, server.token, `/chunked-files/${chunked.id}/part`, [
        { name: "chunkedFilePart", json: { offset, size: part.length } },
        { name: "fileChunk", filename: "chunked.csv", data: part },
      ]);
      expect(sent.status).toBe(200);
    }
    const assembled = (await server.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: chunked.id, engagementId })).body;
    const table = (await server.api.post("/json-tables", {})).body;
    expect((await server.api.post(`/json-tables/${table.id}/append`, [{ account: "1000", amount: 12.5 }, { account: "2000", amount: -3 }])).status).toBe(200);
    const merged = (await server.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: table.id, name: "rows" })).body;

    // The only job slot is still taken: these were complete when the requests answered, no job involved.
    for (const file of [uploaded, assembled, merged]) {
      const info = (await server.api.get(`/file-info/${file.fileInfoId}`)).body;
      expect(info).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", version: 0 });
      expect(await app.prisma.asyncResult.count({ where: { entityId: file.fileInfoId } })).toBe(0);
    }
    expect((await server.api.get(`/file-info/${merged.fileInfoId}`)).body.columnData.map((c: { columnName: string }) => c.columnName)).toEqual(["account", "amount"]);

    // The file info job reading the stored bytes afterwards finds what the reading on arrival found.
    const byJob = await jobProducedFile("ledger.csv", csv);
    expect((await awaitJob(server.api, hold)).status).toBe("COMPLETE");
    const reference = await settledInfo(byJob.fileInfoId);
    const comparable = (info: Record<string, unknown>) => {
      const { id, version, creationDate, lastModifiedDate, fileManagerFileId, createdUser, lastModifiedUser, ...rest } = info;
      return rest;
    };
    expect(comparable(reference)).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", delimiter: ";" });
    for (const file of [uploaded, assembled]) {
      const info = (await server.api.get(`/file-info/${file.fileInfoId}`)).body;
      expect(comparable({ ...info, name: reference.name })).toEqual(comparable(reference));
    }
  });

  it("creates an arriving file's row with the reading's early result, and again with the final one when the reading failed at its end", async () => {
    const app = server.running.app;
    const user = (await server.api.get("/users/current")).body;
    const ctx = { app, auth: { userId: user.id, userName: user.userName, tokenId: null } } as unknown as RequestContext;
    const early: FileInspection = { type: "FILE_INFO" };
    const observer = (final: FileInspection | null): UploadObserver<FileInspection | null> => ({
      through: (source) => source,
      early: async () => early,
      // The row is written before the reading ends.
      result: () => new Promise((resolve) => setTimeout(() => resolve(final), 200)),
      keep: () => undefined,
      discard: async () => undefined,
    });
    const create = async (final: FileInspection | null) => {
      const id = newId();
      await app.storage.write(fileObjectKey(id), Readable.from([Buffer.from("a;b\n1;2\n")]));
      return createWithEarlyInspection(ctx, { id, engagementId, name: "early", extension: "csv", originalName: "early.csv", size: 8 }, observer(final));
    };
    // The reading ended with the result it announced: the file info is that one, no job.
    const stood = await create(early);
    expect((await server.api.get(`/file-info/${stood.fileInfoId}`)).body).toMatchObject({ status: "COMPLETE", type: "FILE_INFO" });
    expect(await app.prisma.asyncResult.count({ where: { entityId: stood.fileInfoId } })).toBe(0);
    // It failed at its end: the row written early is rolled back, the file info is the job's.
    const failed = await create(null);
    expect(await app.prisma.fileManagerEntity.count({ where: { id: failed.id } })).toBe(1);
    expect(await app.prisma.fileInfo.count({ where: { fileManagerFileId: failed.id } })).toBe(1);
    expect(await settledInfo(failed.fileInfoId!)).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO", delimiter: ";" });
  });

  it("detects a non-UTF-8 encoding and reports column names, samples and snippets as text (latin-1, Windows-1252, UTF-16LE with BOM)", async () => {
    // "Müller" with ü as the single byte 0xFC: not valid UTF-8, and no byte in 0x80-0x9F.
    const latin1 = iconv.encode("Name;Ort;Straße\nMüller;Köln;Hauptstraße 1\nSchäfer;Düsseldorf;Königsallee 2\n", "latin1");
    expect(latin1.includes(0xfc)).toBe(true);
    // The euro sign is 0x80 in Windows-1252, a control character in ISO-8859-1.
    const windows = iconv.encode("Kunde;Betrag\nMüller;12,50 €\nGroß;3,00 €\n", "win1252");
    expect(windows.includes(0x80)).toBe(true);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("Kunde\tStadt\tSumme\r\nMüller\tZürich\t10.5\r\nGarçon\tParis\t7\r\n", "utf16le")]);

    const [a, b, c] = [await importFile("latin1.csv", latin1), await importFile("ansi.csv", windows), await importFile("unicode.txt", utf16)];

    const first = await settledInfo(a.fileInfoId);
    expect(first).toMatchObject({
      status: "COMPLETE",
      type: "TABULAR_FILE_INFO",
      encoding: "ISO-8859-1",
      delimiter: ";",
      headerRowIndex: 0,
      firstLine: "Name;Ort;Straße",
      columnData: [
        { position: 0, columnName: "Name", rowSample: ["Müller", "Schäfer"] },
        { position: 1, columnName: "Ort", rowSample: ["Köln", "Düsseldorf"] },
        { position: 2, columnName: "Straße", rowSample: ["Hauptstraße 1", "Königsallee 2"] },
      ],
    });
    expect(first.rowContentSnippets).toEqual([["Name", "Ort", "Straße"], ["Müller", "Köln", "Hauptstraße 1"], ["Schäfer", "Düsseldorf", "Königsallee 2"]]);
    expect(first.tableMetadata.specialCharacterMetrics).toMatchObject({ state: "PASS", count: 0, invalidCharacters: 0 });

    const second = await settledInfo(b.fileInfoId);
    expect(second).toMatchObject({
      encoding: "windows-1252",
      firstLine: "Kunde;Betrag",
      columnData: [
        { columnName: "Kunde", rowSample: ["Müller", "Groß"] },
        { columnName: "Betrag", rowSample: ["12,50 €", "3,00 €"] },
      ],
    });

    const third = await settledInfo(c.fileInfoId);
    expect(third).toMatchObject({
      type: "TABULAR_FILE_INFO",
      encoding: "UTF-16LE",
      delimiter: "\t",
      headerRowIndex: 0,
      // No byte order mark and no NUL bytes left in the text.
      firstLine: "Kunde\tStadt\tSumme",
      columnData: [
        { columnName: "Kunde", rowSample: ["Müller", "Garçon"] },
        { columnName: "Stadt", rowSample: ["Zürich", "Paris"] },
        { columnName: "Summe", rowSample: ["10.5", "7"] },
      ],
    });
    expect(third.rowContentSnippets).toEqual([["Kunde", "Stadt", "Summe"], ["Müller", "Zürich", "10.5"], ["Garçon", "Paris", "7"]]);
    expect(third.tableMetadata.overallDataTypeMetrics).toMatchObject({ state: "PASS", totalRecords: 2 });
  });

  it("finds the header below a report title and a blank line (headerRowIndex > 0), with the right column names", async () => {
    const file = await importFile("journal.csv", "Journal report FY2024\n\nDate,Account,Amount\n2024-01-01,1000,5.00\n2024-01-02,2000,7.50\n2024-01-03,3000,1.25\n");
    const info = await settledInfo(file.fileInfoId);
    expect(info).toMatchObject({
      type: "TABULAR_FILE_INFO",
      delimiter: ",",
      firstLine: "Journal report FY2024",
      headerRowIndex: 2,
      lastNonBlankRowIndex: 5,
      tableMetadata: { overallDataTypeMetrics: { state: "PASS", totalRecords: 3 } },
    });
    expect(info.columnData.map((c: { columnName: string }) => c.columnName)).toEqual(["Date", "Account", "Amount"]);
    expect(info.columnData.map((c: { synthetic: boolean }) => c.synthetic)).toEqual([false, false, false]);
    // The title is not taken for data: the samples are the three rows under the header.
    expect(info.columnData[0].rowSample).toEqual(["2024-01-01", "2024-01-02", "2024-01-03"]);
    expect(info.columnData[0].columnMetadata.dataTypeMetrics.dominantType).toBe("DATE");
    expect(info.columnData[2].rowSample).toEqual(["5.00", "7.50", "1.25"]);
    expect(info.rowContentSnippets.slice(0, 3)).toEqual([["Journal report FY2024"], [""], ["Date", "Account", "Amount"]]);
  });

  it("reports metrics in state FAIL: no data rows (rowCount) and a date column with many unreadable values (unparseableValues)", async () => {
    const headerOnly = await importFile("empty-table.csv", "account,name,balance\n");
    const empty = await settledInfo(headerOnly.fileInfoId);
    expect(empty).toMatchObject({ type: "TABULAR_FILE_INFO", headerRowIndex: 0, tableMetadata: { overallDataTypeMetrics: { state: "FAIL", totalRecords: 0 } } });
    expect(empty.columnData.map((c: { columnName: string }) => c.columnName)).toEqual(["account", "name", "balance"]);

    // One value in four is not a date: far above the 1 % a WARN allows.
    const dates = await importFile("dates.csv", "Date,Amount\n2024-01-01,1\n2024-01-02,2\n2024-01-03,3\nnot a date,4\n");
    const info = await settledInfo(dates.fileInfoId);
    expect(info.tableMetadata.overallDataTypeMetrics).toMatchObject({ state: "PASS", totalRecords: 4 });
    const [date, amount] = info.columnData;
    expect(date.columnMetadata.dataTypeMetrics.dominantType).toBe("DATE");
    expect(date.columnMetadata.unparseableValues).toMatchObject({ state: "FAIL", count: 1, dataPreviews: [{ row: 4, column: 0, data: "not a date" }] });
    expect(amount.columnMetadata.unparseableValues).toMatchObject({ state: "PASS", count: 0 });
  });

  it("needs api.file-infos.read, and its internal jobs never show as async results", async () => {
    const file = await importFile("perm.csv", "x\n1\n");
    const denied = await (await clientWithPermissions(server.api, ["api.file-manager.read"], "no infos")).get(`/file-info/${file.fileInfoId}`);
    expect(denied.status).toBe(403);
    expect((await server.api.get("/file-info/0123456789abcdef01234567")).status).toBe(404);
    const asyncResults = await server.api.post("/async-results/query?size=200", {});
    expect(asyncResults.body.content.filter((r: { entityId: string }) => r.entityId === file.fileInfoId)).toEqual([]);
  });
});
