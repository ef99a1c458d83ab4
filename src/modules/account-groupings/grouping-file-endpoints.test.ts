import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions, createEngagement } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";
import type { RestClient } from "../../../test/helpers/client.js";
import { inTransaction } from "../../events/outbox.js";
import { newId } from "../../core/ids.js";
import { recordDiscoveredAccounts } from "../account-mappings/account-mapping.service.js";
import { startFileResultJob } from "../file-results/file-result.service.js";
import { accountGroupingExportJob } from "./account-grouping.export.js";
import { ALL_PERMISSIONS } from "../../auth/permissions.js";

/**
 * The file endpoints of account groupings, engagement account groupings and account mappings, end
 * to end: real .xlsx/.csv bytes uploaded as chunked files over REST, imports and appends, exports
 * as async jobs whose file results are downloaded and read back as workbooks.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

async function xlsx(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function readWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

/** Rows of a sheet as text arrays (row 1 = header), empty cells as "". */
function sheetRows(sheet: ExcelJS.Worksheet): string[][] {
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const values: string[] = [];
    for (let c = 1; c <= sheet.columnCount; c++) {
      const v = row.getCell(c).value;
      values.push(v == null ? "" : String(v));
    }
    rows.push(values);
  });
  return rows;
}

/** Uploads bytes as a chunked file in parts of `partSize` (all of them unless `skipLast`). */
async function chunked(bytes: Buffer, name: string, options: { partSize?: number; skipLast?: boolean; client?: RestClient & { token?: string } } = {}): Promise<string> {
  const client = options.client ?? server.api;
  const created = await client.post("/chunked-files", { name, size: bytes.length });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const partSize = options.partSize ?? Math.ceil(bytes.length / 2);
  const offsets: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += partSize) offsets.push(offset);
  if (options.skipLast) offsets.pop();
  for (const offset of offsets) {
    const data = bytes.subarray(offset, offset + partSize);
    const sent = await postMultipart(server.url, client.token ?? server.token, `/chunked-files/${created.body.id}/part`, [
      { name: "chunkedFilePart", json: { offset, size: data.length } },
      { name: "fileChunk", filename: name, data },
    ]);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  }
  return created.body.id;
}

async function groupsOf(accountGroupingId: string): Promise<any[]> {
  const response = await server.api.post("/account-groups/query?size=200&sort=orderIndex,asc", { accountGroupingId });
  expect(response.status).toBe(200);
  return response.body.content;
}

async function download(client: RestClient & { token?: string }, fileResultId: string) {
  const response = await fetch(`${server.url}/api/v1/file-results/${fileResultId}/export`, { headers: { authorization: `Bearer ${client.token ?? server.token}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Starts an export over REST, waits for COMPLETE, returns the async result and the downloaded bytes. */
async function exported(path: string, body: unknown, type: string) {
  const started = await server.api.post(path, body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body).toMatchObject({ type, entityType: "FILE_RESULT", status: "IN_PROGRESS" });
  const done = await awaitJob(server.api, started.body.id);
  expect(done, JSON.stringify(done)).toMatchObject({ status: "COMPLETE", entityId: started.body.entityId });
  const fileResult = await server.api.get(`/file-results/${done.entityId}`);
  expect(fileResult.status).toBe(200);
  const file = await download(server.api, done.entityId);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-disposition")).toContain(`filename="${fileResult.body.fileName}"`);
  expect(file.bytes.length).toBe(fileResult.body.size);
  return { asyncResult: done, fileResult: fileResult.body, bytes: file.bytes };
}

const TEMPLATE_HEADER = ["Level 1 code", "Level 1 description", "Level 2 code", "Level 2 description", "MAC code", "Account tags"];

async function templateFile(): Promise<Buffer> {
  return xlsx({
    "Account grouping": [
      TEMPLATE_HEADER,
      ["A", "Assets", "A10", "Cash", "1.1.1.1", "cash, petty"],
      ["A", "Assets", "A20", "Bank", "1.1.1.2", ""],
      ["R", "Revenue", "R10", "Sales", "4.1.1.1", null],
      ["R", "Revenue", "R20", "Other income", null, null],
    ],
    Settings: [
      ["Code display name", "Group code"],
      ["Delimiter", "-"],
    ],
  });
}

async function importTemplate(name = "Client chart"): Promise<any> {
  const chunkedFileId = await chunked(await templateFile(), "chart.xlsx");
  const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name, type: "PLATFORM_TEMPLATE" });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe("POST /account-groupings/import-from-chunked-file", () => {
  it("creates a DRAFT grouping from a template workbook uploaded in parts; groups read back with their errors", async () => {
    const grouping = await importTemplate();
    expect(grouping).toMatchObject({ name: { en: "Client chart" }, codeDisplayName: { en: "Group code" }, delimiter: "-", mac: false, system: false, archived: false, publishStatus: "DRAFT", version: 0 });
    expect((await server.api.get(`/account-groupings/${grouping.id}`)).body).toEqual(grouping);
    const groups = await groupsOf(grouping.id);
    expect(groups.map((g) => [g.code, g.parentCode ?? null, g.description.en, g.lowestLevel, g.macCode ?? null, g.accountTags, g.errors.map((e: any) => e.type)])).toEqual([
      ["A", null, "Assets", false, null, [], []],
      ["A10", "A", "Cash", true, "1.1.1.1", ["cash", "petty"], []],
      ["A20", "A", "Bank", true, "1.1.1.2", [], []],
      ["R", null, "Revenue", false, null, [], []],
      ["R10", "R", "Sales", true, "4.1.1.1", [], []],
      ["R20", "R", "Other income", true, null, [], ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
    ]);
    expect(groups.find((g) => g.code === "A10").hierarchy).toEqual(["A", "A10"]);
  });

  it("imports the CCH group trial balance layout (.xlsx report with title lines and totals)", async () => {
    const file = await xlsx({
      "Group TB": [
        ["Example Manufacturing Ltd."],
        ["Group Trial Balance"],
        [],
        ["Group", "Subgroup", "Account", "Description", "Final"],
        ["A", null, null, "Cash and cash equivalents"],
        [null, "A.1", null, "Petty cash"],
        [null, null, "1000", "Petty cash - head office", 500],
        [null, "A.2", null, "Bank accounts"],
        [null, null, "1010", "Operating account", 9750],
        ["Total A", null, null, null, 10250],
        ["L", null, null, "Trade payables"],
        [null, null, "2000", "Trade payables", -4000],
      ],
    });
    const chunkedFileId = await chunked(file, "group-tb.xlsx", { partSize: 1000 });
    const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "CCH chart", type: "CCH_GROUP_TRIAL_BALANCE" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ name: { en: "CCH chart" }, publishStatus: "DRAFT", mac: false });
    const groups = await groupsOf(response.body.id);
    expect(groups.map((g) => [g.code, g.parentCode ?? null, g.description.en, g.lowestLevel, g.errors.map((e: any) => e.type)])).toEqual([
      ["A", null, "Cash and cash equivalents", false, []],
      ["A.1", "A", "Petty cash", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
      ["A.2", "A", "Bank accounts", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
      ["L", null, "Trade payables", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
    ]);
  });

  it("imports the flat CCH layout from a CSV chunked file, MAC codes included", async () => {
    const csv = Buffer.from(
      ["Group,Group Description,Subgroup,Subgroup Description,Account,Account Description,MAC code,Balance", "A,Cash,A.1,Petty cash,1000,Petty cash,1.1.1.1,500.00", "S,Sales,,,4000,Product sales,4.1.1.1,-12000.00"].join("\r\n"),
    );
    const chunkedFileId = await chunked(csv, "group-tb.csv");
    const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "Flat", type: "CCH_GROUP_TRIAL_BALANCE" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const groups = await groupsOf(response.body.id);
    expect(groups.map((g) => [g.code, g.macCode ?? null, g.errors.length])).toEqual([
      ["A", null, 0],
      ["A.1", "1.1.1.1", 0],
      ["S", "4.1.1.1", 0],
    ]);
  });

  it("answers 400 INVALID_ACCOUNT_GROUPING_FILE for files that are not the layout, and stores nothing", async () => {
    const before = (await server.api.post("/account-groupings/query", {})).body.totalElements;
    const notExcel = await chunked(Buffer.from("Level 1 code,Level 1 description\nA,Assets\n"), "chart.xlsx");
    const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: notExcel, name: "Bad", type: "PLATFORM_TEMPLATE" });
    expect(response.status).toBe(400);
    expect(response.body.problems[0]).toMatchObject({ problemType: "INVALID_ACCOUNT_GROUPING_FILE" });
    expect(response.body.problems[0].reason).toMatch(/not an Excel/);

    const gap = await chunked(await xlsx({ "Account grouping": [TEMPLATE_HEADER, ["A", "Assets", "", "", "1.1.1.1", ""], ["", "", "B10", "Orphan", "1.1.1.2", ""]] }), "gap.xlsx");
    const gapResponse = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: gap, name: "Gap", type: "PLATFORM_TEMPLATE" });
    expect(gapResponse.status).toBe(400);
    expect(gapResponse.body.problems).toEqual([expect.objectContaining({ problemType: "INVALID_ACCOUNT_GROUPING_FILE", identifier: "row 3" })]);

    const corrupt = await chunked(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(300, 7)]), "corrupt.xlsx");
    const corruptResponse = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: corrupt, name: "Corrupt", type: "PLATFORM_TEMPLATE" });
    expect(corruptResponse.status).toBe(400);
    expect(corruptResponse.body.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");

    const noGroupHeader = await chunked(Buffer.from("Account,Description\n1000,Cash\n"), "tb.csv");
    const cch = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: noGroupHeader, name: "No header", type: "CCH_GROUP_TRIAL_BALANCE" });
    expect(cch.status).toBe(400);
    expect(cch.body.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");

    expect((await server.api.post("/account-groupings/query", {})).body.totalElements).toBe(before);
  });

  it("answers 409 naming the missing bytes for an incomplete chunked file, 404 for an unknown one", async () => {
    const file = await templateFile();
    const incomplete = await chunked(file, "chart.xlsx", { partSize: 1024, skipLast: true });
    const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: incomplete, name: "Half", type: "PLATFORM_TEMPLATE" });
    expect(response.status).toBe(409);
    const lastOffset = Math.floor((file.length - 1) / 1024) * 1024;
    expect(response.body.problems[0].reason).toContain(`bytes ${lastOffset}-${file.length - 1}`);
    expect(response.body.problems[0].identifier).toBe("chunkedFileId");

    const unknown = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: newId(), name: "None", type: "PLATFORM_TEMPLATE" });
    expect(unknown.status).toBe(404);
  });

  it("answers 413 for a chunked file declared larger than a grouping file may be, before any bytes arrive", async () => {
    const huge = await server.api.post("/chunked-files", { name: "huge.xlsx", size: 60 * 1024 * 1024 });
    const response = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId: huge.body.id, name: "Huge", type: "PLATFORM_TEMPLATE" });
    expect(response.status).toBe(413);
    expect(response.body.problems[0].identifier).toBe("chunkedFileId");
  });

  it("validates the body: required keys, the type enum, blank names, unknown keys", async () => {
    const chunkedFileId = await chunked(await templateFile(), "chart.xlsx");
    const missing = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, type: "PLATFORM_TEMPLATE" });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.problems)).toContain("name");
    const badType = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "X", type: "SPREADSHEET" });
    expect(badType.status).toBe(400);
    const blank = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: " ", type: "PLATFORM_TEMPLATE" });
    expect(blank.status).toBe(400);
    const unknownKey = await server.api.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "X", type: "PLATFORM_TEMPLATE", sheet: "Chart" });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.problems[0].identifier).toBe("sheet");
  });
});

describe("export, edit, append (the round trip)", () => {
  it("exports every group to a template workbook, then an edited copy appended changes the groups", async () => {
    const grouping = await importTemplate("Round trip");
    const { asyncResult, fileResult, bytes } = await exported(`/account-groupings/${grouping.id}/export`, {}, "ACCOUNT_GROUPING_EXPORT");
    expect(fileResult).toMatchObject({ id: asyncResult.entityId, fileName: "Round trip.xlsx" });

    const workbook = await readWorkbook(bytes);
    const sheet = workbook.getWorksheet("Account grouping")!;
    const rows = sheetRows(sheet);
    expect(rows[0].slice(0, 6)).toEqual(TEMPLATE_HEADER);
    expect(rows.slice(1).map((r) => [r[0], r[2], r[4]])).toEqual([
      ["A", "", ""],
      ["A", "A10", "1.1.1.1"],
      ["A", "A20", "1.1.1.2"],
      ["R", "", ""],
      ["R", "R10", "4.1.1.1"],
      ["R", "R20", ""],
    ]);

    // Edit as a person would: fix R20's MAC code, rename A20, add a group under R.
    const edited = sheet;
    edited.eachRow((row) => {
      if (row.getCell(3).value === "R20") row.getCell(5).value = "4.1.1.1";
      if (row.getCell(3).value === "A20") row.getCell(4).value = "Bank accounts";
    });
    edited.addRow(["R", "Revenue", "R30", "Interest", "4.1.1.1", "interest"]);
    const editedBytes = Buffer.from(await workbook.xlsx.writeBuffer());

    const chunkedFileId = await chunked(editedBytes, "edited.xlsx");
    const appended = await server.api.post(`/account-groupings/${grouping.id}/append-from-chunked-file`, { chunkedFileId });
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    expect(appended.body).toMatchObject({ id: grouping.id, version: grouping.version + 1, publishStatus: "DRAFT" });

    const groups = await groupsOf(grouping.id);
    expect(groups.map((g) => [g.code, g.description.en, g.macCode ?? null, g.accountTags, g.errors.length])).toEqual([
      ["A", "Assets", null, [], 0],
      ["A10", "Cash", "1.1.1.1", ["cash", "petty"], 0],
      ["A20", "Bank accounts", "1.1.1.2", [], 0],
      ["R", "Revenue", null, [], 0],
      ["R10", "Sales", "4.1.1.1", [], 0],
      ["R20", "Other income", "4.1.1.1", [], 0],
      ["R30", "Interest", "4.1.1.1", ["interest"], 0],
    ]);
    // Without errors the grouping can now be published.
    const published = await server.api.put(`/account-groupings/${grouping.id}`, { publishStatus: "PUBLISHED", version: appended.body.version });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
  });

  it("serves the body form POST /account-groupings/export {accountGroupingId}, also for the system grouping", async () => {
    const { bytes, fileResult } = await exported("/account-groupings/export", { accountGroupingId: "5cc9076887f13cb8a7a19300" }, "ACCOUNT_GROUPING_EXPORT");
    expect(fileResult.fileName).toMatch(/\.xlsx$/);
    const rows = sheetRows((await readWorkbook(bytes)).getWorksheet("Account grouping")!);
    const total = (await server.api.post("/account-groups/query?size=1", { accountGroupingId: "5cc9076887f13cb8a7a19300" })).body.totalElements;
    expect(rows.length - 1).toBe(total);
    expect(rows.some((r) => r.includes("1.1.1.2"))).toBe(true);
  });

  it("export: 404 for an unknown grouping (path and body forms), 400 for a body without the id", async () => {
    expect((await server.api.post(`/account-groupings/${newId()}/export`, {})).status).toBe(404);
    expect((await server.api.post("/account-groupings/export", { accountGroupingId: newId() })).status).toBe(404);
    expect((await server.api.post("/account-groupings/export", {})).status).toBe(400);
  });

  it("append: 409 for the system grouping, 404 for unknown groupings, 400 for a bad file, 409 for an incomplete one", async () => {
    const good = await chunked(await templateFile(), "chart.xlsx");
    expect((await server.api.post("/account-groupings/5cc9076887f13cb8a7a19300/append-from-chunked-file", { chunkedFileId: good })).status).toBe(409);
    expect((await server.api.post(`/account-groupings/${newId()}/append-from-chunked-file`, { chunkedFileId: good })).status).toBe(404);

    const grouping = await importTemplate("Append failures");
    const bad = await chunked(Buffer.from("not a workbook at all"), "bad.xlsx");
    const badResponse = await server.api.post(`/account-groupings/${grouping.id}/append-from-chunked-file`, { chunkedFileId: bad });
    expect(badResponse.status).toBe(400);
    expect(badResponse.body.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");
    const incomplete = await chunked(await templateFile(), "chart.xlsx", { partSize: 2048, skipLast: true });
    expect((await server.api.post(`/account-groupings/${grouping.id}/append-from-chunked-file`, { chunkedFileId: incomplete })).status).toBe(409);
    expect((await server.api.post(`/account-groupings/${grouping.id}/append-from-chunked-file`, {})).status).toBe(400);
    expect((await server.api.get(`/account-groupings/${grouping.id}`)).body.version).toBe(grouping.version);
  });

  it("a grouping deleted before its export runs ends the job in ERROR with the cause", async () => {
    const grouping = await importTemplate("Short-lived");
    // The job is queued only after commit, so deleting in the starting transaction makes it meet a missing grouping.
    const [user, token] = await Promise.all([server.api.get("/users/current"), server.api.get("/api-tokens/current")]);
    const started = await inTransaction(server.running.app, async (tx) => {
      const asyncResult = await startFileResultJob(tx, {
        job: accountGroupingExportJob,
        payload: { accountGroupingId: grouping.id },
        fileName: "gone.xlsx",
        startedBy: { userId: user.body.id, userName: user.body.userName, tokenId: token.body.id },
      });
      await tx.accountGroup.deleteMany({ where: { accountGroupingId: grouping.id } });
      await tx.accountGrouping.delete({ where: { id: grouping.id } });
      return asyncResult;
    });
    const done = await awaitJob(server.api, started.id);
    expect(done.status).toBe("ERROR");
    expect(done.error).toContain(grouping.id);
    expect((await server.api.get(`/file-results/${done.entityId}`)).status).toBe(200);
    expect((await download(server.api, done.entityId)).status).toBe(409);
  });
});

describe("engagement account grouping export", () => {
  it("downloads a workbook with the engagement's groups, hidden and added ones included", async () => {
    const engagement = await createEngagement(server.api, `Export ${newId()}`);
    const grouping = (await server.api.post("/engagement-account-groupings/query", { engagementId: engagement.id })).body.content[0];
    const added = await server.api.post("/engagement-account-groups", {
      engagementAccountGroupingId: grouping.id,
      code: "1.1.1.2.X",
      parentCode: "1.1.1",
      description: { en: "Engagement-only bank" },
      hidden: true,
      macCode: "1.1.1.2",
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);

    const { bytes, fileResult } = await exported(`/engagement-account-groupings/${grouping.id}/export`, {}, "ACCOUNT_GROUPING_EXPORT");
    expect(fileResult.fileName).toMatch(/\.xlsx$/);
    const rows = sheetRows((await readWorkbook(bytes)).getWorksheet("Account grouping")!);
    const total = (await server.api.post("/engagement-account-groups/query?size=1", { engagementAccountGroupingId: grouping.id })).body.totalElements;
    expect(rows.length - 1).toBe(total);
    const addedRow = rows.find((r) => r.includes("1.1.1.2.X"))!;
    expect(addedRow).toBeDefined();
    expect(addedRow).toContain("Engagement-only bank");
    expect(addedRow).toContain("1.1.1.2");

    // The body forms: by grouping id and by engagement id.
    const byId = await exported("/engagement-account-groupings/export", { engagementAccountGroupingId: grouping.id }, "ACCOUNT_GROUPING_EXPORT");
    expect(sheetRows((await readWorkbook(byId.bytes)).getWorksheet("Account grouping")!)).toEqual(rows);
    const byEngagement = await exported("/engagement-account-groupings/export", { engagementId: engagement.id }, "ACCOUNT_GROUPING_EXPORT");
    expect(sheetRows((await readWorkbook(byEngagement.bytes)).getWorksheet("Account grouping")!)).toEqual(rows);
  });

  it("404 for unknown groupings and engagements, 400 without exactly one of the two ids", async () => {
    expect((await server.api.post(`/engagement-account-groupings/${newId()}/export`, {})).status).toBe(404);
    expect((await server.api.post("/engagement-account-groupings/export", { engagementId: newId() })).status).toBe(404);
    expect((await server.api.post("/engagement-account-groupings/export", {})).status).toBe(400);
    const engagement = await createEngagement(server.api, `Both ${newId()}`);
    const grouping = (await server.api.post("/engagement-account-groupings/query", { engagementId: engagement.id })).body.content[0];
    const both = await server.api.post("/engagement-account-groupings/export", { engagementId: engagement.id, engagementAccountGroupingId: grouping.id });
    expect(both.status).toBe(400);
    expect((await server.api.post("/engagement-account-groupings/export", { engagementId: engagement.id, extra: 1 })).status).toBe(400);
  });
});

describe("account mapping export", () => {
  it("writes one row per mapping with its group, MAC code and status", async () => {
    const engagement = await createEngagement(server.api, `Mappings ${newId()}`);
    const sourceId = newId();
    await inTransaction(server.running.app, (tx, emit) =>
      recordDiscoveredAccounts(tx, emit, { userId: "ingestion", userName: "ingestion" }, {
        engagementId: engagement.id,
        analysisSourceId: sourceId,
        accounts: [
          { account: "1010", accountDescription: "Operating account", code: "1.1.1.2" },
          { account: "0999", accountDescription: "Mystery account" },
        ],
      }),
    );
    const mappings = (await server.api.post("/account-mappings/query?sort=account,asc", { engagementId: engagement.id })).body.content;
    expect(mappings.map((m: any) => [m.account, m.status])).toEqual([
      ["0999", "UNMAPPED"],
      ["1010", "MAC_CODE"],
    ]);

    const { bytes, fileResult } = await exported("/account-mappings/export", { engagementId: engagement.id }, "ACCOUNT_MAPPING_EXPORT");
    expect(fileResult.fileName).toMatch(/^Account mappings .*\.xlsx$/);
    const rows = sheetRows((await readWorkbook(bytes)).getWorksheet("Account mappings")!);
    expect(rows[0]).toEqual(["Account", "Account description", "Fund", "Group code", "Group description", "MAC code", "Status", "Account tags", "Used by analysis sources"]);
    expect(rows.slice(1)).toEqual([
      ["0999", "Mystery account", "", "", "", "", "UNMAPPED", "", sourceId],
      ["1010", "Operating account", "", "1.1.1.2", "Cash at bank", "1.1.1.2", "MAC_CODE", "", sourceId],
    ]);
  });

  it("exports an engagement without mappings as a header-only workbook; 404 unknown engagement; 400 bad bodies", async () => {
    const engagement = await createEngagement(server.api, `Empty ${newId()}`);
    const { bytes } = await exported("/account-mappings/export", { engagementId: engagement.id }, "ACCOUNT_MAPPING_EXPORT");
    expect(sheetRows((await readWorkbook(bytes)).getWorksheet("Account mappings")!)).toHaveLength(1);
    expect((await server.api.post("/account-mappings/export", { engagementId: newId() })).status).toBe(404);
    expect((await server.api.post("/account-mappings/export", {})).status).toBe(400);
    expect((await server.api.post("/account-mappings/export", { engagementId: engagement.id, sort: "x" })).status).toBe(400);
  });
});

describe("permissions and ownership", () => {
  it("needs write to import/append and read of the area to export; the export's file needs nothing more", async () => {
    // Wire reference permissions only: the export's async result, file result and bytes belong to the starting token.
    const reader = await clientWithPermissions(server.api, ["api.account-groupings.read", "api.engagement-account-groupings.read", "api.analyses.read"], "readers");
    // A chunked file belongs to the token that declared it: the writer uploads its own.
    const writer = await clientWithPermissions(server.api, ["api.account-groupings.write", "api.file-manager.write"], "grouping writer");
    const chunkedFileId = await chunked(await templateFile(), "chart.xlsx", { client: writer });
    const grouping = await importTemplate("Permissions");
    const engagement = await createEngagement(server.api, `Perm ${newId()}`);

    const denied = await reader.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "X", type: "PLATFORM_TEMPLATE" });
    expect(denied.status).toBe(403);
    expect((await reader.post(`/account-groupings/${grouping.id}/append-from-chunked-file`, { chunkedFileId })).status).toBe(403);
    expect((await writer.post(`/account-groupings/${grouping.id}/export`, {})).status).toBe(403);
    expect((await writer.post("/account-mappings/export", { engagementId: engagement.id })).status).toBe(403);
    expect((await writer.post("/engagement-account-groupings/export", { engagementId: engagement.id })).status).toBe(403);

    const imported = await writer.post("/account-groupings/import-from-chunked-file", { chunkedFileId, name: "By writer", type: "PLATFORM_TEMPLATE" });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const started = await reader.post(`/account-groupings/${grouping.id}/export`, {});
    expect(started.status).toBe(200);
    const done = await awaitJob(reader, started.body.id);
    expect(done.status).toBe("COMPLETE");
    expect((await reader.get(`/file-results/${done.entityId}`)).status).toBe(200);
    expect((await download(reader, done.entityId)).status).toBe(200);
    const mappingsExport = await reader.post("/account-mappings/export", { engagementId: engagement.id });
    expect(mappingsExport.status).toBe(200);
    expect((await awaitJob(reader, mappingsExport.body.id)).status).toBe("COMPLETE");
  });

  it("only the token that started an export sees its async result and file result (404 for others)", async () => {
    // Even with every permission another token does not see it.
    const other = await clientWithPermissions(server.api, [...ALL_PERMISSIONS], "other");
    const grouping = await importTemplate("Owned");
    const started = await server.api.post("/account-groupings/export", { accountGroupingId: grouping.id });
    const done = await awaitJob(server.api, started.body.id);
    expect(done.status).toBe("COMPLETE");
    expect((await other.get(`/async-results/${started.body.id}`)).status).toBe(404);
    expect((await other.get(`/file-results/${done.entityId}`)).status).toBe(404);
    expect((await download(other, done.entityId)).status).toBe(404);
    expect((await download(server.api, done.entityId)).status).toBe(200);
  });
});

describe("GraphQL", () => {
  it("imports, appends and exports through the same services", async () => {
    const chunkedFileId = await chunked(await templateFile(), "chart.xlsx");
    const { body: imported } = await server.gql(
      `mutation($input: ImportAccountGroupingInput!) { importAccountGrouping(input: $input) { id name publishStatus groups { code macCode } } }`,
      { input: { chunkedFileId, name: "From GraphQL", type: "PLATFORM_TEMPLATE" } },
    );
    expect(imported.errors).toBeUndefined();
    const grouping = imported.data.importAccountGrouping;
    expect(grouping).toMatchObject({ name: { en: "From GraphQL" }, publishStatus: "DRAFT" });
    expect(grouping.groups.map((g: any) => g.code)).toEqual(["A", "A10", "A20", "R", "R10", "R20"]);

    const bad = await chunked(Buffer.from("x,y\n"), "bad.xlsx");
    const { body: refused } = await server.gql(`mutation($id: ID!, $c: ID!) { appendAccountGroupingFromChunkedFile(id: $id, chunkedFileId: $c) { id } }`, { id: grouping.id, c: bad });
    expect(refused.errors[0].extensions).toMatchObject({ status: 400 });
    expect(refused.errors[0].extensions.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");

    const engagement = await createEngagement(server.api, `GQL ${newId()}`);
    const { body: exports } = await server.gql(
      `mutation($g: ID!, $e: ID!) {
        a: exportAccountGrouping(id: $g) { id type entityType status }
        b: exportEngagementAccountGrouping(engagementId: $e) { id type entityType }
        c: exportAccountMappings(engagementId: $e) { id type entityType }
      }`,
      { g: grouping.id, e: engagement.id },
    );
    expect(exports.errors).toBeUndefined();
    expect(exports.data.a).toMatchObject({ type: "ACCOUNT_GROUPING_EXPORT", entityType: "FILE_RESULT", status: "IN_PROGRESS" });
    expect(exports.data.b).toMatchObject({ type: "ACCOUNT_GROUPING_EXPORT", entityType: "FILE_RESULT" });
    expect(exports.data.c).toMatchObject({ type: "ACCOUNT_MAPPING_EXPORT", entityType: "FILE_RESULT" });
    for (const key of ["a", "b", "c"]) expect((await awaitJob(server.api, exports.data[key].id)).status).toBe("COMPLETE");
  });
});
