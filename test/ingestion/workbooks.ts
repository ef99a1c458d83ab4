import ExcelJS from "exceljs";
import type { Cell } from "./layouts.js";

/**
 * Workbooks written the way spreadsheet programs store them: dates as serial numbers shown with a
 * date format, amounts as numbers, text as shared strings.
 */
export async function xlsxOf(sheets: { name: string; rows: Cell[][] }[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name);
    for (const row of sheet.rows) {
      const added = worksheet.addRow(row.map((c) => c ?? null));
      row.forEach((c, i) => {
        if (c instanceof Date) added.getCell(i + 1).numFmt = "mm/dd/yyyy";
        else if (typeof c === "number" && !Number.isInteger(c)) added.getCell(i + 1).numFmt = "#,##0.00";
      });
    }
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A legacy .xls (BIFF8) workbook, written by SheetJS. */
export async function xlsOf(sheets: { name: string; rows: Cell[][] }[]): Promise<Buffer> {
  const XLSX = await import("@e965/xlsx");
  const book = XLSX.utils.book_new();
  for (const sheet of sheets) {
    const ws = XLSX.utils.aoa_to_sheet([]);
    sheet.rows.forEach((row, r) =>
      row.forEach((c, col) => {
        if (c === null || c === undefined) return;
        const address = XLSX.utils.encode_cell({ r, c: col });
        ws[address] =
          c instanceof Date
            ? { t: "n", v: (c.getTime() - Date.UTC(1899, 11, 30)) / 86_400_000, z: "m/d/yyyy" }
            : typeof c === "number"
              ? { t: "n", v: c }
              : { t: "s", v: c };
      }),
    );
    const width = Math.max(1, ...sheet.rows.map((r) => r.length));
    ws["!ref"] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: Math.max(0, sheet.rows.length - 1), c: width - 1 } });
    XLSX.utils.book_append_sheet(book, ws, sheet.name);
  }
  return Buffer.from(XLSX.write(book, { type: "buffer", bookType: "biff8" }));
}
