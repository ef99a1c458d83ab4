import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";

let server: TestServer;
let engagementId: string;

beforeAll(async () => {
  server = await startTestServer();
  engagementId = (await createEngagement(server.api, "file infos")).id;
});
afterAll(async () => server?.close());

async function importFile(filename: string, data: string) {
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
    return response.body.type === "TABULAR_FILE_INFO" || response.body.version > 0 ? response.body : undefined;
  }, `file info ${id}`);
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
        { position: 0, columnName: "account", synthetic: false, rowSample: ["1000", "2000"], columnMetadata: { blanks: { state: "PASS", count: 0 } } },
        { position: 1, columnName: "name", synthetic: false, rowSample: ["Cash", "Bank"] },
      ],
      tableMetadata: { rowCount: { state: "PASS", count: 2 } },
    });
  });

  it("describes a semicolon-delimited export with its metrics: types per column, duplicate rows, unreadable dates", async () => {
    const file = await importFile("ledger.csv", "Date;Account;Amount\n01/02/2024;1000;12,50\n01/02/2024;1000;12,50\nnot a date;2000;-3,00\n");
    const info = await settledInfo(file.fileInfoId);
    expect(info).toMatchObject({ type: "TABULAR_FILE_INFO", delimiter: ";", headerRowIndex: 0, lastNonBlankRowIndex: 3 });
    expect(info.tableMetadata.rowCount).toMatchObject({ state: "PASS", count: 3 });
    expect(info.tableMetadata.duplicateRows).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ rowIndex: 2, row: ["01/02/2024", "1000", "12,50"] }] });
    const [date, account, amount] = info.columnData;
    expect(date).toMatchObject({ columnName: "Date", columnMetadata: { dataType: { dominantType: "DATE", detectedTypes: { DATE: 2, TEXT: 1 } } } });
    expect(account.columnMetadata.dataType.dominantType).toBe("NUMBER");
    expect(amount.columnMetadata.dataType.dominantType).toBe("NUMBER");
  });

  it("keeps non-tabular files as FILE_INFO and lets queries mix both kinds", async () => {
    const binary = await importFile("scan.pdf", "%PDF-1.4");
    const tabular = await importFile("more.csv", "a,b\n1,2\n");
    const plain = await settledInfo(binary.fileInfoId);
    expect(plain).toMatchObject({ type: "FILE_INFO", name: "scan.pdf" });
    expect(plain).not.toHaveProperty("columnData");
    await settledInfo(tabular.fileInfoId);
    const both = await server.api.post("/file-info/query", { id: { $in: [binary.fileInfoId, tabular.fileInfoId] } });
    expect(both.body.content.map((i: { type: string }) => i.type).sort()).toEqual(["FILE_INFO", "TABULAR_FILE_INFO"]);
    const onlyTabular = await server.api.post("/file-info/query", { $and: [{ type: "TABULAR_FILE_INFO" }, { fileManagerFileId: tabular.id }] });
    expect(onlyTabular.body.content.map((i: { id: string }) => i.id)).toEqual([tabular.fileInfoId]);
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
