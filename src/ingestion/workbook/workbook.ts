import { detectHeaderRow } from "../csv/sniff.js";
import type { WorkbookInfo } from "../types.js";
import type { WorkbookReader } from "./cells.js";
import { openXls } from "./xls.js";
import { openXlsx } from "./xlsx.js";

export type WorkbookKind = WorkbookInfo["kind"];

/** The workbook of a detection: its sheets, and the sheet (by position) the rows come from. */
export interface WorkbookReading extends WorkbookInfo {
  sheetIndex: number;
}

export async function openWorkbook(path: string, kind: WorkbookKind): Promise<WorkbookReader> {
  return kind === "XLSX" ? openXlsx(path) : openXls(path);
}

/** Rows read from the top of each sheet to judge it and to detect its header. */
export const SHEET_HEAD_ROWS = 300;

/**
 * The first rows of a sheet as records (index = row number - 1; rows the sheet leaves out are
 * blank records, so indexes stay the spreadsheet's).
 */
export async function sheetHead(reader: WorkbookReader, sheet: number, max = SHEET_HEAD_ROWS): Promise<string[][]> {
  const records: string[][] = [];
  await reader.rows(sheet, (index, cells) => {
    while (records.length < index && records.length < max) records.push([""]);
    if (records.length >= max) return false;
    records.push(cells.length > 0 ? [...cells] : [""]);
    return records.length < max;
  });
  return records;
}

/**
 * A sheet holds a table when it has a header row followed by a row with at least two values (a
 * cover page, notes or a chart has not). With several such sheets the rows are read from the
 * first of them, and the file info's sheetMetrics names the others (WARN).
 */
export function holdsTable(records: string[][]): boolean {
  const headerRowIndex = detectHeaderRow(records).headerRowIndex;
  if (headerRowIndex === null) return false;
  return records.slice(headerRowIndex + 1).some((r) => r.filter((v) => v.trim() !== "").length >= 2);
}

/** Opens the workbook, judges every sheet and picks the one to read. */
export async function readWorkbookLayout(path: string, kind: WorkbookKind): Promise<{ workbook: WorkbookReading; records: string[][] }> {
  const reader = await openWorkbook(path, kind);
  try {
    const heads: string[][][] = [];
    const validSheets: string[] = [];
    for (let i = 0; i < reader.sheetNames.length; i++) {
      heads.push(await sheetHead(reader, i));
      if (holdsTable(heads[i])) validSheets.push(reader.sheetNames[i]);
    }
    const sheetIndex = validSheets.length > 0 ? reader.sheetNames.indexOf(validSheets[0]) : 0;
    return {
      workbook: { kind, sheetNames: reader.sheetNames, validSheets, sheet: reader.sheetNames[sheetIndex] ?? "", sheetIndex },
      records: heads[sheetIndex] ?? [],
    };
  } finally {
    reader.close();
  }
}
