import { displayText } from "./localized-text.js";
import { writeTemplateWorkbook } from "./template-workbook.js";

/** What a stored grouping (library or engagement) and its groups have in common for an export. */
interface StoredGrouping {
  id: string;
  name: PrismaJson.LocalizedText;
  codeDisplayName: PrismaJson.LocalizedText;
  delimiter: string;
}

interface StoredGroup {
  code: string;
  description: PrismaJson.LocalizedText;
  hierarchy: string[];
  macCode: string | null;
  accountTags: string[];
  errors: PrismaJson.AccountGroupErrors;
}

/** A grouping as a template workbook (exports), readable again by import and append. */
export async function groupingWorkbook(grouping: StoredGrouping, groups: StoredGroup[]): Promise<{ fileName: string; bytes: Buffer }> {
  const name = displayText(grouping.name) || grouping.id;
  const bytes = await writeTemplateWorkbook({
    name,
    codeDisplayName: displayText(grouping.codeDisplayName) || "Code",
    delimiter: grouping.delimiter,
    groups: groups.map((g) => ({ code: g.code, description: displayText(g.description) || g.code, hierarchy: g.hierarchy, macCode: g.macCode, accountTags: g.accountTags, errors: g.errors })),
  });
  return { fileName: `${safeFileName(name)}.xlsx`, bytes };
}

export function safeFileName(name: string): string {
  return name.replace(/[^\p{L}\p{N} ._-]+/gu, "_").trim().slice(0, 120) || "account-grouping";
}
