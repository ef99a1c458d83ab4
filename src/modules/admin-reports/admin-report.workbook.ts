import { loadExcelJs } from "../../core/lazy-modules.js";

export interface SheetSpec {
  name: string;
  columns: Array<{ header: string; key: string; width?: number; numFmt?: string }>;
  rows: Array<Record<string, unknown>>;
}

/** One .xlsx workbook: a frozen, bold header row per sheet, values typed (numbers, dates) as given. */
export async function workbookOf(sheets: SheetSpec[]): Promise<Buffer> {
  const ExcelJS = await loadExcelJs();
  const workbook = new ExcelJS.Workbook();
  for (const spec of sheets) {
    const sheet = workbook.addWorksheet(spec.name, { views: [{ state: "frozen", ySplit: 1 }] });
    sheet.columns = spec.columns.map((c) => ({ header: c.header, key: c.key, width: c.width ?? Math.max(12, c.header.length + 2), style: c.numFmt ? { numFmt: c.numFmt } : {} }));
    sheet.getRow(1).font = { bold: true };
    for (const row of spec.rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
