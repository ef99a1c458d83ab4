import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { readTemplateWorkbook, writeTemplateWorkbook } from "./template-workbook.js";
import { readCchGroupTrialBalance } from "./cch-trial-balance.js";
import { finishTree, groupsFromPaths } from "./grouping-tree.js";
import { parseCsv } from "./csv.js";

const MAC_LEVELS = new Map([
  ["1", 1],
  ["1.1", 2],
  ["1.1.1", 3],
  ["1.1.1.1", 4],
  ["1.1.1.2", 4],
  ["4.1.1.1", 4],
]);

async function xlsx(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as { extensions: { status: number; problems: Array<{ problemType: string; identifier?: string; reason: string }> } };
  }
  throw new Error("expected a rejection");
}

describe("platform template workbook", () => {
  it("reads paths, MAC codes, tags and settings as a person fills them in", async () => {
    const file = await xlsx({
      "Account grouping": [
        ["Level 1 code", "Level 1 description", "Level 2 code", "Level 2 description", "Level 3 code", "Level 3 description", "MAC code", "Account tags"],
        ["A", "Assets", "A10", "Cash", "A10.1", "Petty cash", "1.1.1.1", "cash, petty"],
        ["A", "Assets", "A10", "Cash", "A10.2", "Bank", "1.1.1.2", ""],
        ["R", "Revenue", "R1", "Sales", null, null, "4.1.1.1", null],
        [],
        ["R", "Revenue", null, null, null, null, null, null],
      ],
      Settings: [
        ["Code display name", "Group code"],
        ["Delimiter", "-"],
      ],
    });
    const contents = await readTemplateWorkbook(file);
    expect(contents.codeDisplayName).toBe("Group code");
    expect(contents.delimiter).toBe("-");
    expect(contents.rows).toHaveLength(4);
    expect(contents.rows[0]).toEqual({ row: 2, levels: [{ code: "A", description: "Assets" }, { code: "A10", description: "Cash" }, { code: "A10.1", description: "Petty cash" }], macCode: "1.1.1.1", accountTags: ["cash", "petty"] });
    const { groups, sheetErrors } = groupsFromPaths(contents.rows);
    const tree = finishTree(groups, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    expect(tree.map((g) => [g.code, g.parentCode, g.lowestLevel, g.hierarchy.join(">"), g.errors.map((e) => e.type)])).toEqual([
      ["A", null, false, "A", []],
      ["A10", "A", false, "A>A10", []],
      ["A10.1", "A10", true, "A>A10>A10.1", []],
      ["A10.2", "A10", true, "A>A10>A10.2", []],
      ["R", null, false, "R", []],
      ["R1", "R", true, "R>R1", []],
    ]);
  });

  it("flags lowest-level groups without a MAC code or with one that is not level 4", async () => {
    const file = await xlsx({
      Sheet1: [
        ["Level 1 Code", "Level 1 Description", "Level 2 Code", "Level 2 Description", "MAC Code"],
        ["A", "Assets", "A1", "No MAC", ""],
        ["A", "Assets", "A2", "Level 3 MAC", "1.1.1"],
        ["A", "Assets", "A3", "Unknown MAC", "9.9.9.9"],
      ],
    });
    const { groups, sheetErrors } = groupsFromPaths((await readTemplateWorkbook(file)).rows);
    const tree = finishTree(groups, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    expect(Object.fromEntries(tree.map((g) => [g.code, g.errors]))).toEqual({
      A: [],
      A1: [{ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: ["A1"] }],
      A2: [{ type: "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC", arguments: ["A2", "1.1.1"] }],
      A3: [{ type: "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC", arguments: ["A3", "9.9.9.9"] }],
    });
  });

  it("flags a code that appears under two different parents", async () => {
    const file = await xlsx({
      "Account grouping": [
        ["Level 1 code", "Level 1 description", "Level 2 code", "Level 2 description", "MAC code"],
        ["A", "Assets", "X1", "Shared", "1.1.1.1"],
        ["L", "Liabilities", "X1", "Shared", "1.1.1.1"],
        ["L", "Liabilities", "L1", "Loans", "1.1.1.2"],
      ],
    });
    const { groups, sheetErrors } = groupsFromPaths((await readTemplateWorkbook(file)).rows);
    const tree = finishTree(groups, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    const x1 = tree.find((g) => g.code === "X1")!;
    expect(x1.parentCode).toBe("A");
    expect(x1.errors).toEqual([{ type: "ERROR_INCONSISTENT_SHEET_HIERARCHY", arguments: ["X1", "parent A in row 2", "parent L in row 3"] }]);
  });

  it("refuses files that are not a readable template with INVALID_ACCOUNT_GROUPING_FILE", async () => {
    const notExcel = await rejection(readTemplateWorkbook(Buffer.from("Level 1 code,Level 1 description\nA,Assets\n")));
    expect(notExcel.extensions.status).toBe(400);
    expect(notExcel.extensions.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");

    const corrupt = await rejection(readTemplateWorkbook(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)])));
    expect(corrupt.extensions.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");

    const noHeader = await rejection(readTemplateWorkbook(await xlsx({ Data: [["Code", "Name"], ["A", "Assets"]] })));
    expect(noHeader.extensions.problems[0].reason).toMatch(/Level 1 code/);

    const gap = await rejection(
      readTemplateWorkbook(await xlsx({ "Account grouping": [["Level 1 code", "Level 2 code", "Level 3 code"], ["A", "", "A1"], ["B", "B1", ""]] })),
    );
    expect(gap.extensions.problems).toHaveLength(1);
    expect(gap.extensions.problems[0]).toMatchObject({ identifier: "row 2", problemType: "INVALID_ACCOUNT_GROUPING_FILE" });

    const empty = await rejection(readTemplateWorkbook(await xlsx({ "Account grouping": [["Level 1 code", "Level 1 description"]] })));
    expect(empty.extensions.problems[0].reason).toMatch(/no group rows/);

    const levelGap = await rejection(readTemplateWorkbook(await xlsx({ "Account grouping": [["Level 1 code", "Level 3 code"], ["A", "B"]] })));
    expect(levelGap.extensions.problems[0].reason).toMatch(/Level 2 code/);
  });

  it("round-trips: a written grouping reads back as the same tree, codes kept as text", async () => {
    const groups = finishTree(
      [
        { code: "0042", parentCode: null, description: "Top", macCode: null, accountTags: [] },
        { code: "1.10", parentCode: "0042", description: "Child, with comma", macCode: "1.1.1.1", accountTags: ["cash", "bank"] },
        { code: "1.2", parentCode: "0042", description: "Other", macCode: null, accountTags: [] },
      ],
      { mac: false, macLevels: MAC_LEVELS },
    );
    const file = await writeTemplateWorkbook({ name: "Round trip", codeDisplayName: "Code", delimiter: ".", groups });
    const contents = await readTemplateWorkbook(file);
    expect(contents.codeDisplayName).toBe("Code");
    expect(contents.delimiter).toBe(".");
    const { groups: read, sheetErrors } = groupsFromPaths(contents.rows);
    const again = finishTree(read, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    expect(again).toEqual(groups);
    // The Errors column tells the reader what to fix.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Account grouping")!;
    expect(sheet.getRow(1).values).toEqual([undefined, "Level 1 code", "Level 1 description", "Level 2 code", "Level 2 description", "MAC code", "Account tags", "Errors"]);
    expect(String(sheet.getRow(4).getCell(7).value)).toContain("ERROR_LOWEST_LEVEL_WITH_NO_MAC");
  });
});

describe("CCH group trial balance", () => {
  it("reads the grouped report layout (title lines, group rows, subgroup rows, accounts, totals)", async () => {
    const file = await xlsx({
      "Group TB": [
        ["Example Manufacturing Ltd."],
        ["Group Trial Balance"],
        ["Year ended December 31, 2024"],
        [],
        ["Group", "Subgroup", "Account", "Description", "Prelim", "Adjustments", "Final"],
        ["A", null, null, "Cash and cash equivalents"],
        [null, "A.1", null, "Petty cash"],
        [null, null, "1000", "Petty cash - head office", 500, 0, 500],
        [null, "A.2", null, "Bank accounts"],
        [null, null, "1010", "Operating account", 10000, -250, 9750],
        [null, null, "1020", "Payroll account", 2500, 0, 2500],
        ["Total A", null, null, null, 13000, -250, 12750],
        ["L", null, null, "Accounts payable and accrued liabilities"],
        [null, null, "2000", "Trade payables", -4000, 0, -4000],
        ["Grand total", null, null, null, 0, 0, 0],
      ],
    });
    const contents = await readCchGroupTrialBalance(file);
    const { groups, sheetErrors } = groupsFromPaths(contents.rows);
    const tree = finishTree(groups, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    expect(tree.map((g) => [g.code, g.parentCode, g.description, g.lowestLevel, g.errors.map((e) => e.type)])).toEqual([
      ["A", null, "Cash and cash equivalents", false, []],
      ["A.1", "A", "Petty cash", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
      ["A.2", "A", "Bank accounts", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
      ["L", null, "Accounts payable and accrued liabilities", true, ["ERROR_LOWEST_LEVEL_WITH_NO_MAC"]],
    ]);
    expect(contents.accounts.map((a) => [a.account, a.groupCode])).toEqual([
      ["1000", "A.1"],
      ["1010", "A.2"],
      ["1020", "A.2"],
      ["2000", "L"],
    ]);
  });

  it("reads the flat layout from CSV, with group descriptions and a MAC code column", async () => {
    const csv = [
      "Group,Group Description,Subgroup,Subgroup Description,Account,Account Description,MAC code,Balance",
      'A,Cash,A.1,Petty cash,1000,"Petty cash, head office",1.1.1.1,500.00',
      "A,Cash,A.2,Bank,1010,Operating account,1.1.1.2,9750.00",
      "A,Cash,A.2,Bank,1020,Payroll account,1.1.1.2,2500.00",
      "S,Sales,,,4000,Product sales,4.1.1.1,-12000.00",
    ].join("\r\n");
    const contents = await readCchGroupTrialBalance(Buffer.from(csv));
    const { groups, sheetErrors } = groupsFromPaths(contents.rows);
    const tree = finishTree(groups, { mac: false, macLevels: MAC_LEVELS, carried: sheetErrors });
    expect(tree.map((g) => [g.code, g.parentCode, g.description, g.macCode, g.errors.length])).toEqual([
      ["A", null, "Cash", null, 0],
      ["A.1", "A", "Petty cash", "1.1.1.1", 0],
      ["A.2", "A", "Bank", "1.1.1.2", 0],
      ["S", null, "Sales", "4.1.1.1", 0],
    ]);
    expect(contents.accounts.find((a) => a.account === "1000")?.description).toBe("Petty cash, head office");
  });

  it("refuses files without a Group header, binary files and subgroups before any group", async () => {
    const noHeader = await rejection(readCchGroupTrialBalance(Buffer.from("Account,Description\n1000,Cash\n")));
    expect(noHeader.extensions.problems[0]).toMatchObject({ problemType: "INVALID_ACCOUNT_GROUPING_FILE", identifier: "header" });
    const binary = await rejection(readCchGroupTrialBalance(Buffer.from([0, 1, 2, 3, 0, 9])));
    expect(binary.extensions.problems[0].problemType).toBe("INVALID_ACCOUNT_GROUPING_FILE");
    const orphan = await rejection(readCchGroupTrialBalance(Buffer.from("Group,Subgroup,Description\n,A.1,Orphan\n")));
    expect(orphan.extensions.problems[0]).toMatchObject({ identifier: "row 2" });
    const nothing = await rejection(readCchGroupTrialBalance(Buffer.from("Group,Description\nTotal,0\n")));
    expect(nothing.extensions.problems[0].reason).toMatch(/no groups/);
  });
});

describe("grouping tree rules", () => {
  it("reports missing parents and parent loops as inconsistent hierarchy", () => {
    const tree = finishTree(
      [
        { code: "A", parentCode: "B", description: "A", macCode: "1.1.1.1", accountTags: [] },
        { code: "B", parentCode: "A", description: "B", macCode: "1.1.1.1", accountTags: [] },
        { code: "C", parentCode: "Z", description: "C", macCode: "1.1.1.1", accountTags: [] },
      ],
      { mac: false, macLevels: MAC_LEVELS },
    );
    expect(tree.map((g) => g.errors.map((e) => e.type))).toEqual([["ERROR_INCONSISTENT_SHEET_HIERARCHY"], ["ERROR_INCONSISTENT_SHEET_HIERARCHY"], ["ERROR_INCONSISTENT_SHEET_HIERARCHY"]]);
  });

  it("does not ask MAC groupings for MAC codes", () => {
    const tree = finishTree([{ code: "1", parentCode: null, description: "Assets", macCode: null, accountTags: [] }], { mac: true, macLevels: MAC_LEVELS });
    expect(tree[0].errors).toEqual([]);
  });

  it("parses CSV with quotes, escaped quotes, embedded newlines and semicolons", () => {
    expect(parseCsv('a;"b;c";"say ""hi"""\r\n"multi\nline";x;\n')).toEqual([
      ["a", "b;c", 'say "hi"'],
      ["multi\nline", "x", ""],
    ]);
  });
});
