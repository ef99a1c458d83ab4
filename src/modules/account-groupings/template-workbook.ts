import type ExcelJS from "exceljs";
import { loadExcelJs } from "../../core/lazy-modules.js";
import { cellText, looksLikeXlsx } from "./cell-text.js";
import { invalidGroupingFile, type FileProblem } from "./grouping-file-error.js";
import { pathsOf, type GroupError, type GroupNode, type PathRow } from "./grouping-tree.js";

/**
 * The platform template (import type PLATFORM_TEMPLATE), also the layout of grouping exports so
 * that export, edit and append round-trips. Sheet "Account grouping", header in row 1:
 *
 *   Level 1 code | Level 1 description | ... | Level N code | Level N description | MAC code | Account tags | Errors
 *
 * Each data row is the path from a level-1 group down to one group; MAC code and account tags
 * (comma separated) belong to the row's last group. "Errors" is written by exports and ignored on
 * import. An optional sheet "Settings" holds "Code display name" and "Delimiter" in columns A/B.
 */
export const TEMPLATE_SHEET = "Account grouping";
export const SETTINGS_SHEET = "Settings";
export const MAX_GROUPS = 50_000;
const MAX_PROBLEMS = 25;

export interface TemplateContents {
  codeDisplayName: string | null;
  delimiter: string | null;
  rows: PathRow[];
}

const LEVEL = /^level\s*(\d+)\s*(code|description|desc)$/i;
const MAC = /^mac(\s*code)?$/i;
const TAGS = /^account\s*tags?$/i;

async function loadWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  if (!looksLikeXlsx(bytes)) throw invalidGroupingFile([{ reason: "The file is not an Excel .xlsx workbook" }]);
  const workbook = new (await loadExcelJs()).Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw invalidGroupingFile([{ reason: `The workbook cannot be read: ${(error as Error).message}` }]);
  }
  return workbook;
}

function headerColumns(sheet: ExcelJS.Worksheet) {
  const levels = new Map<number, { code?: number; description?: number }>();
  let mac: number | undefined;
  let tags: number | undefined;
  sheet.getRow(1).eachCell((cell, column) => {
    const text = cellText(cell.value);
    const level = LEVEL.exec(text);
    if (level) {
      const entry = levels.get(Number(level[1])) ?? {};
      if (level[2].toLowerCase() === "code") entry.code = column;
      else entry.description = column;
      levels.set(Number(level[1]), entry);
    } else if (MAC.test(text)) mac = column;
    else if (TAGS.test(text)) tags = column;
  });
  return { levels, mac, tags };
}

export async function readTemplateWorkbook(bytes: Buffer): Promise<TemplateContents> {
  const workbook = await loadWorkbook(bytes);
  const sheet = workbook.getWorksheet(TEMPLATE_SHEET) ?? workbook.worksheets.find((ws) => headerColumns(ws).levels.get(1)?.code !== undefined);
  if (!sheet) throw invalidGroupingFile([{ reason: `No sheet "${TEMPLATE_SHEET}" with a "Level 1 code" column in row 1`, location: "sheet" }]);
  const header = headerColumns(sheet);
  const problems: FileProblem[] = [];
  const depth = header.levels.size;
  for (let level = 1; level <= depth; level++) {
    if (header.levels.get(level)?.code === undefined) problems.push({ reason: `Column "Level ${level} code" is missing: level columns must run from 1 without gaps`, location: `sheet ${sheet.name} row 1` });
  }
  if (depth === 0) problems.push({ reason: `Row 1 of sheet ${sheet.name} has no "Level 1 code" column`, location: `sheet ${sheet.name} row 1` });
  if (problems.length > 0) throw invalidGroupingFile(problems);

  const rows: PathRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (rowNumber === 1 || problems.length >= MAX_PROBLEMS) return;
    const levels: PathRow["levels"] = [];
    let gapAt = 0;
    for (let level = 1; level <= depth; level++) {
      const columns = header.levels.get(level)!;
      const code = cellText(row.getCell(columns.code!).value);
      const description = columns.description ? cellText(row.getCell(columns.description).value) : "";
      if (!code) {
        if (description) problems.push({ reason: `Level ${level} has a description but no code`, location: `row ${rowNumber}`, values: [description] });
        if (!gapAt) gapAt = level;
        continue;
      }
      if (gapAt) {
        problems.push({ reason: `Level ${level} has a code but level ${gapAt} is empty: a row is a path from level 1 down`, location: `row ${rowNumber}`, values: [code] });
        return;
      }
      levels.push({ code, description });
    }
    const macCode = header.mac ? cellText(row.getCell(header.mac).value) || null : null;
    const accountTags = header.tags
      ? cellText(row.getCell(header.tags).value)
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean)
      : [];
    if (levels.length === 0) {
      if (macCode || accountTags.length > 0) problems.push({ reason: "The row has a MAC code or account tags but no group code", location: `row ${rowNumber}` });
      return;
    }
    rows.push({ row: rowNumber, levels, macCode, accountTags });
  });
  if (problems.length > 0) throw invalidGroupingFile(problems);
  if (rows.length === 0) throw invalidGroupingFile([{ reason: `Sheet ${sheet.name} has no group rows below the header`, location: `sheet ${sheet.name}` }]);
  if (rows.length > MAX_GROUPS) throw invalidGroupingFile([{ reason: `The sheet has more than ${MAX_GROUPS} rows` }]);

  let codeDisplayName: string | null = null;
  let delimiter: string | null = null;
  workbook.getWorksheet(SETTINGS_SHEET)?.eachRow((row) => {
    const key = cellText(row.getCell(1).value).toLowerCase();
    const value = cellText(row.getCell(2).value);
    if (key === "code display name" && value) codeDisplayName = value;
    if (key === "delimiter" && value) delimiter = value;
  });
  return { codeDisplayName, delimiter, rows };
}

export interface WorkbookGrouping {
  name: string;
  codeDisplayName: string;
  delimiter: string;
  groups: Array<Pick<GroupNode, "code" | "description" | "hierarchy" | "macCode" | "accountTags"> & { errors: GroupError[] }>;
}

/** Writes a grouping in the template layout (exports): readTemplateWorkbook reads it back unchanged. */
export async function writeTemplateWorkbook(grouping: WorkbookGrouping): Promise<Buffer> {
  const workbook = new (await loadExcelJs()).Workbook();
  workbook.creator = "ledger analytics";
  const sheet = workbook.addWorksheet(TEMPLATE_SHEET, { views: [{ state: "frozen", ySplit: 1 }] });
  const depth = Math.max(1, ...grouping.groups.map((g) => g.hierarchy.length));
  const header: string[] = [];
  for (let level = 1; level <= depth; level++) header.push(`Level ${level} code`, `Level ${level} description`);
  header.push("MAC code", "Account tags", "Errors");
  sheet.addRow(header).font = { bold: true };
  const errorsByCode = new Map(grouping.groups.map((g) => [g.code, g.errors]));
  for (const path of pathsOf(grouping.groups)) {
    const cells: string[] = [];
    for (let level = 0; level < depth; level++) {
      const entry = path.levels[level];
      cells.push(entry?.code ?? "", entry?.code ? entry.description : "");
    }
    const last = path.levels[path.levels.length - 1]?.code;
    const errors = (last ? errorsByCode.get(last) : undefined) ?? [];
    cells.push(path.macCode ?? "", path.accountTags.join(", "), errors.map((e) => `${e.type}: ${e.arguments.join("; ")}`).join("\n"));
    const row = sheet.addRow(cells);
    // Text cells, so codes like 1.10 or 0042 keep their exact spelling when Excel reopens them.
    row.eachCell((cell) => {
      cell.numFmt = "@";
    });
  }
  sheet.columns.forEach((column, index) => {
    column.width = index % 2 === 0 && index < depth * 2 ? 14 : 36;
  });
  const settings = workbook.addWorksheet(SETTINGS_SHEET);
  settings.addRow(["Name", grouping.name]);
  settings.addRow(["Code display name", grouping.codeDisplayName]);
  settings.addRow(["Delimiter", grouping.delimiter]);
  settings.getColumn(1).width = 22;
  settings.getColumn(2).width = 40;
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
