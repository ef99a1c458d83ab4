import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { writeAccountMappingWorkbook, type MappingRow } from "./account-mapping-workbook.js";

async function collect(rows: MappingRow[] | AsyncIterable<MappingRow>): Promise<{ count: number; bytes: Buffer }> {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on("data", (chunk) => chunks.push(chunk));
  const count = await writeAccountMappingWorkbook(rows, stream);
  await new Promise((resolve) => stream.end(resolve));
  return { count, bytes: Buffer.concat(chunks) };
}

describe("account mapping workbook", () => {
  it("writes one text row per mapping under a header", async () => {
    const { count, bytes } = await collect([
      { account: "0100", accountDescription: "Cash", fundId: null, code: "1.1.1.1", groupDescription: "Cash on hand", macCode: "1.1.1.1", status: "VERIFIED", accountTags: ["cash"], usedByAnalysisSources: ["a", "b"] },
      { account: "9999", accountDescription: null, fundId: "F1", code: null, groupDescription: null, macCode: null, status: "UNMAPPED", accountTags: [], usedByAnalysisSources: [] },
    ]);
    expect(count).toBe(2);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Account mappings")!;
    expect(sheet.getRow(1).values).toEqual([undefined, "Account", "Account description", "Fund", "Group code", "Group description", "MAC code", "Status", "Account tags", "Used by analysis sources"]);
    const second = sheet.getRow(2);
    expect(Array.from({ length: 9 }, (_, i) => second.getCell(i + 1).value ?? null)).toEqual(["0100", "Cash", null, "1.1.1.1", "Cash on hand", "1.1.1.1", "VERIFIED", "cash", "a, b"]);
    expect(sheet.getRow(3).getCell(1).value).toBe("9999");
    expect(sheet.getRow(3).getCell(7).value).toBe("UNMAPPED");
    expect(sheet.rowCount).toBe(3);
  });

  it("streams rows from an async source", async () => {
    async function* many() {
      for (let i = 0; i < 5000; i++) yield { account: String(i), accountDescription: `Account ${i}`, fundId: null, code: null, groupDescription: null, macCode: null, status: "UNMAPPED", accountTags: [], usedByAnalysisSources: [] };
    }
    const { count, bytes } = await collect(many());
    expect(count).toBe(5000);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.getWorksheet("Account mappings")!.rowCount).toBe(5001);
  });
});
