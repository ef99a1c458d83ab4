import type { Writable } from "node:stream";
import { loadExcelJs } from "../../core/lazy-modules.js";

export interface MappingRow {
  account: string;
  accountDescription: string | null;
  fundId: string | null;
  code: string | null;
  groupDescription: string | null;
  macCode: string | null;
  status: string;
  accountTags: string[];
  usedByAnalysisSources: string[];
}

export const MAPPING_SHEET = "Account mappings";
const HEADER = ["Account", "Account description", "Fund", "Group code", "Group description", "MAC code", "Status", "Account tags", "Used by analysis sources"];

/**
 * The account mapping export (ACCOUNT_MAPPING_EXPORT): one row per mapping, written row by row
 * through the streaming workbook writer so large charts of accounts never sit in memory whole.
 */
export async function writeAccountMappingWorkbook(rows: AsyncIterable<MappingRow> | Iterable<MappingRow>, output: Writable): Promise<number> {
  const workbook = new (await loadExcelJs()).stream.xlsx.WorkbookWriter({ stream: output, useSharedStrings: false, useStyles: true });
  const sheet = workbook.addWorksheet(MAPPING_SHEET, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = HEADER.map((header, index) => ({ header, key: String(index), width: index === 1 || index === 4 ? 40 : 18, style: { numFmt: "@" } }));
  sheet.getRow(1).font = { bold: true };
  let count = 0;
  for await (const row of rows) {
    sheet
      .addRow([
        row.account,
        row.accountDescription,
        row.fundId,
        row.code,
        row.groupDescription,
        row.macCode,
        row.status,
        row.accountTags.join(", ") || null,
        row.usedByAnalysisSources.join(", ") || null,
      ])
      .commit();
    count++;
  }
  sheet.commit();
  await workbook.commit();
  return count;
}
