import { readFile } from "node:fs/promises";
import { isDateFormat, renderNumber, renderSerialDate, type SheetReader, type WorkbookReader } from "./cells.js";

/**
 * Legacy .xls workbooks (BIFF8 in an OLE compound file) through SheetJS, which reads them whole: a
 * sheet of that format holds at most 65,536 rows by 256 columns, so memory stays bounded. Cells
 * keep their types: numbers shown with a date format become ISO dates like in .xlsx.
 */
export async function openXls(path: string): Promise<WorkbookReader> {
  // Loaded with the first .xls: a few megabytes of code no other request needs.
  const XLSX = await import("@e965/xlsx");
  const workbook = XLSX.read(await readFile(path), { type: "buffer", dense: true, cellNF: true, cellDates: false, cellText: false, cellHTML: false, cellFormula: false });
  const date1904 = Boolean(workbook.Workbook?.WBProps?.date1904);
  return {
    kind: "XLS",
    sheetNames: workbook.SheetNames,
    async rows(sheet: number, onRow: SheetReader) {
      const data = (workbook.Sheets[workbook.SheetNames[sheet]]?.["!data"] ?? []) as (({ t: string; v?: unknown; z?: string | number; w?: string } | undefined)[] | undefined)[];
      for (let r = 0; r < data.length; r++) {
        const row = data[r];
        if (!row) continue;
        // Dense rows leave holes where a row has no cell: Array.from visits them.
        const cells = Array.from(row, (cell) => {
          if (!cell || cell.v === undefined || cell.v === null) return "";
          switch (cell.t) {
            case "n":
              return typeof cell.z === "string" && isDateFormat(cell.z) ? (renderSerialDate(cell.v as number, date1904) ?? renderNumber(cell.v as number)) : renderNumber(cell.v as number);
            case "b":
              return cell.v ? "TRUE" : "FALSE";
            case "e":
              return cell.w ?? "";
            case "d":
              return (cell.v as Date).toISOString().slice(0, 10);
            default:
              return String(cell.v);
          }
        });
        if (onRow(r, cells) === false) return;
      }
    },
    close() {},
  };
}
