import { loadExcelJs } from "../../core/lazy-modules.js";
import { cellText, looksLikeXlsx } from "./cell-text.js";
import { parseCsv } from "./csv.js";
import { invalidGroupingFile, type FileProblem } from "./grouping-file-error.js";
import type { PathRow } from "./grouping-tree.js";

/**
 * The group trial balance as CCH engagement software exports it (import type
 * CCH_GROUP_TRIAL_BALANCE), as .xlsx or .csv. Title lines may precede the header row, which is
 * found in the first 30 rows by a "Group" column. Recognised columns (case-insensitive):
 * Group, Group Description, Subgroup, Subgroup Description, Account, Description (or Account
 * Description), MAC code; balance columns are ignored. Both report layouts work:
 *
 * - grouped: a row opens a group (Group filled), rows below it open subgroups (Subgroup filled),
 *   account rows below those belong to the open subgroup; "Total ..." rows are skipped;
 * - flat: every account row repeats its group and subgroup.
 *
 * Subgroups become level-2 groups under their group. The file carries no MAC codes unless it has
 * a MAC code column, so lowest-level groups usually arrive with ERROR_LOWEST_LEVEL_WITH_NO_MAC and
 * are completed with PUT /account-groups/{id}.
 */
export interface CchContents {
  rows: PathRow[];
  accounts: Array<{ account: string; description: string; groupCode: string; row: number }>;
}

const HEADER_SCAN_ROWS = 30;
const COLUMNS = {
  group: /^(group|group\s*#|group\s*code|group\s*no\.?|grouping|grouping\s*code)$/i,
  groupDescription: /^(group\s*description|group\s*name|grouping\s*description)$/i,
  subgroup: /^(sub-?\s*group|sub-?\s*group\s*#|sub-?\s*group\s*code|sub-?\s*group\s*no\.?)$/i,
  subgroupDescription: /^(sub-?\s*group\s*description|sub-?\s*group\s*name)$/i,
  account: /^(account|account\s*#|account\s*number|account\s*no\.?|acct\.?|acct\s*#)$/i,
  description: /^(description|account\s*description|account\s*name|name)$/i,
  mac: /^mac(\s*code)?$/i,
} as const;
type ColumnName = keyof typeof COLUMNS;

async function table(bytes: Buffer): Promise<string[][]> {
  if (looksLikeXlsx(bytes)) {
    const workbook = new (await loadExcelJs()).Workbook();
    try {
      await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    } catch (error) {
      throw invalidGroupingFile([{ reason: `The workbook cannot be read: ${(error as Error).message}` }]);
    }
    const sheets = workbook.worksheets.map((sheet) => {
      const rows: string[][] = [];
      sheet.eachRow({ includeEmpty: true }, (row, rowNumber) => {
        const values: string[] = [];
        row.eachCell({ includeEmpty: true }, (cell, column) => {
          values[column - 1] = cellText(cell.value);
        });
        rows[rowNumber - 1] = Array.from(values, (v) => v ?? "");
      });
      return Array.from(rows, (r) => r ?? []);
    });
    return sheets.find((rows) => findHeader(rows) !== undefined) ?? sheets[0] ?? [];
  }
  const text = bytes.toString("utf8");
  if (text.includes("\u0000")) throw invalidGroupingFile([{ reason: "The file is neither an .xlsx workbook nor a text (CSV) file" }]);
  return parseCsv(text);
}

function findHeader(rows: string[][]): { index: number; columns: Partial<Record<ColumnName, number>> } | undefined {
  for (let index = 0; index < Math.min(rows.length, HEADER_SCAN_ROWS); index++) {
    const columns: Partial<Record<ColumnName, number>> = {};
    rows[index].forEach((text, column) => {
      for (const [name, pattern] of Object.entries(COLUMNS) as Array<[ColumnName, RegExp]>) {
        if (columns[name] === undefined && pattern.test(text)) {
          columns[name] = column;
          break;
        }
      }
    });
    if (columns.group !== undefined) return { index, columns };
  }
  return undefined;
}

export async function readCchGroupTrialBalance(bytes: Buffer): Promise<CchContents> {
  const rows = await table(bytes);
  const header = findHeader(rows);
  if (!header) throw invalidGroupingFile([{ reason: `No header row with a "Group" column in the first ${HEADER_SCAN_ROWS} rows`, location: "header" }]);
  const at = (row: string[], name: ColumnName) => (header.columns[name] === undefined ? "" : (row[header.columns[name]!] ?? "").trim());
  const problems: FileProblem[] = [];
  const out: CchContents = { rows: [], accounts: [] };
  let group: string | null = null;
  let subgroup: string | null = null;
  for (let index = header.index + 1; index < rows.length && problems.length < 25; index++) {
    const row = rows[index];
    const rowNumber = index + 1;
    const first = row.find((cell) => cell && cell.trim() !== "") ?? "";
    if (!first || /^(grand\s+)?total\b/i.test(first)) continue;
    const g = at(row, "group");
    const s = at(row, "subgroup");
    const a = at(row, "account");
    const d = at(row, "description");
    const mac = at(row, "mac") || null;
    if (g) {
      group = g;
      subgroup = null;
      const description = at(row, "groupDescription") || (!s && !a ? d : "");
      out.rows.push({ row: rowNumber, levels: [{ code: g, description }], macCode: !s ? mac : null, accountTags: [] });
    }
    if (s) {
      if (!group) {
        problems.push({ reason: `Subgroup ${s} appears before any group`, location: `row ${rowNumber}`, values: [s] });
        continue;
      }
      subgroup = s;
      const description = at(row, "subgroupDescription") || (!a ? d : "");
      out.rows.push({ row: rowNumber, levels: [{ code: group, description: "" }, { code: s, description }], macCode: mac, accountTags: [] });
    }
    if (a) {
      const owner = subgroup ?? group;
      if (!owner) {
        problems.push({ reason: `Account ${a} appears before any group`, location: `row ${rowNumber}`, values: [a] });
        continue;
      }
      out.accounts.push({ account: a, description: d, groupCode: owner, row: rowNumber });
    }
  }
  if (problems.length > 0) throw invalidGroupingFile(problems);
  if (out.rows.length === 0) throw invalidGroupingFile([{ reason: "The file names no groups below its header row", location: `row ${header.index + 1}` }]);
  return out;
}
