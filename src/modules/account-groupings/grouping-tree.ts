/**
 * The shape rules of an account grouping, as pure functions: how rows of a sheet become a tree of
 * groups, and which groups carry errors (wire section 7 `errors[].type`). Imports, appends, engagement
 * copies and edits all go through `finishTree`, so every group's hierarchy, lowest-level flag and
 * errors are computed one way.
 */
export type GroupErrorType = "ERROR_LOWEST_LEVEL_WITH_NO_MAC" | "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC" | "ERROR_INCONSISTENT_SHEET_HIERARCHY";

export interface GroupError {
  type: GroupErrorType;
  arguments: string[];
}

/** A group as a sheet or a user gives it. */
export interface GroupInput {
  code: string;
  parentCode: string | null;
  description: string;
  macCode: string | null;
  accountTags: string[];
}

/** A group with everything derived from its place in the tree. */
export interface GroupNode extends GroupInput {
  hierarchy: string[];
  lowestLevel: boolean;
  orderIndex: number;
  errors: GroupError[];
}

/** One data row of a sheet: the path of groups from level 1 down, and what applies to its last group. */
export interface PathRow {
  /** 1-based row number in the sheet, for messages. */
  row: number;
  levels: Array<{ code: string; description: string }>;
  macCode: string | null;
  accountTags: string[];
}

/**
 * Builds groups from sheet rows. A code met again must keep its parent (and its MAC code when both
 * rows give one); when it does not, the first occurrence wins and the group gets
 * ERROR_INCONSISTENT_SHEET_HIERARCHY naming the rows that disagree.
 */
export function groupsFromPaths(rows: PathRow[]): { groups: GroupInput[]; sheetErrors: Map<string, GroupError[]> } {
  const groups = new Map<string, GroupInput & { firstRow: number }>();
  const sheetErrors = new Map<string, GroupError[]>();
  const flag = (code: string, args: string[]) => {
    const list = sheetErrors.get(code) ?? [];
    list.push({ type: "ERROR_INCONSISTENT_SHEET_HIERARCHY", arguments: args });
    sheetErrors.set(code, list);
  };
  for (const row of rows) {
    row.levels.forEach((level, index) => {
      const parentCode = index === 0 ? null : row.levels[index - 1].code;
      const last = index === row.levels.length - 1;
      const existing = groups.get(level.code);
      if (!existing) {
        groups.set(level.code, {
          code: level.code,
          parentCode,
          description: level.description,
          macCode: last ? row.macCode : null,
          accountTags: last ? row.accountTags : [],
          firstRow: row.row,
        });
        return;
      }
      if (existing.parentCode !== parentCode) {
        flag(level.code, [level.code, `parent ${existing.parentCode ?? "(none)"} in row ${existing.firstRow}`, `parent ${parentCode ?? "(none)"} in row ${row.row}`]);
      }
      if (!existing.description && level.description) existing.description = level.description;
      if (last && row.macCode) {
        if (existing.macCode && existing.macCode !== row.macCode) {
          flag(level.code, [level.code, `MAC code ${existing.macCode} in an earlier row`, `MAC code ${row.macCode} in row ${row.row}`]);
        } else existing.macCode = row.macCode;
      }
      if (last && row.accountTags.length > 0) existing.accountTags = [...new Set([...existing.accountTags, ...row.accountTags])];
    });
  }
  return { groups: [...groups.values()].map(({ firstRow: _, ...group }) => ({ ...group, description: group.description || group.code })), sheetErrors };
}

/**
 * Derives hierarchy, lowest-level flags, order and errors for a whole grouping. `macLevels` maps
 * every MAC code of the platform classification to its level (1..4); lowest-level groups of a
 * non-MAC grouping must point at a level-4 code. `carried` holds errors found while reading a sheet.
 */
export function finishTree(groups: GroupInput[], options: { mac: boolean; macLevels: ReadonlyMap<string, number>; carried?: ReadonlyMap<string, GroupError[]> }): GroupNode[] {
  const byCode = new Map(groups.map((g) => [g.code, g]));
  const hasChildren = new Set(groups.map((g) => g.parentCode).filter((p): p is string => p !== null && byCode.has(p)));
  return groups.map((group, orderIndex) => {
    const errors: GroupError[] = [...(options.carried?.get(group.code) ?? [])];
    const hierarchy: string[] = [];
    const seen = new Set<string>();
    let cursor: GroupInput | undefined = group;
    while (cursor && !seen.has(cursor.code)) {
      seen.add(cursor.code);
      hierarchy.unshift(cursor.code);
      cursor = cursor.parentCode ? byCode.get(cursor.parentCode) : undefined;
    }
    if (cursor) errors.push({ type: "ERROR_INCONSISTENT_SHEET_HIERARCHY", arguments: [group.code, `the parent chain of ${group.code} loops back to ${cursor.code}`] });
    else if (group.parentCode && !byCode.has(group.parentCode)) {
      errors.push({ type: "ERROR_INCONSISTENT_SHEET_HIERARCHY", arguments: [group.code, `parent ${group.parentCode} does not exist`] });
    }
    const lowestLevel = !hasChildren.has(group.code);
    if (lowestLevel && !options.mac) {
      if (!group.macCode) errors.push({ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: [group.code] });
      else if (options.macLevels.get(group.macCode) !== 4) {
        errors.push({ type: "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC", arguments: [group.code, group.macCode] });
      }
    }
    return { ...group, hierarchy, lowestLevel, orderIndex, errors };
  });
}

/** Sheet rows for a grouping: one per group, the path from its level-1 ancestor down to it. */
export function pathsOf(groups: Array<Pick<GroupNode, "code" | "description" | "hierarchy" | "macCode" | "accountTags">>): PathRow[] {
  const byCode = new Map(groups.map((g) => [g.code, g]));
  return groups.map((group, index) => ({
    row: index + 2,
    levels: group.hierarchy.map((code) => ({ code, description: byCode.get(code)?.description ?? code })),
    macCode: group.macCode,
    accountTags: group.accountTags,
  }));
}

/** A stored group as far as the tree rules care. */
export interface StoredGroup {
  code: string;
  parentCode: string | null;
  description: unknown;
  macCode: string | null;
  accountTags: string[];
  hierarchy: string[];
  lowestLevel: boolean;
  errors: unknown;
}

/** Errors read from a sheet name the disagreeing rows (three arguments); they stay until the next import or append. */
function sheetErrorsOf(errors: unknown): GroupError[] {
  return Array.isArray(errors) ? (errors as GroupError[]).filter((e) => e?.type === "ERROR_INCONSISTENT_SHEET_HIERARCHY" && e.arguments?.length === 3) : [];
}

/**
 * After an edit (a group added, removed, re-coded or given a MAC code), recomputes every group's
 * derived fields and returns only the groups whose hierarchy, lowest-level flag or errors changed.
 */
export function rederive<T extends StoredGroup>(rows: T[], options: { mac: boolean; macLevels: ReadonlyMap<string, number> }): Array<{ row: T; hierarchy: string[]; lowestLevel: boolean; errors: GroupError[] }> {
  const carried = new Map(rows.map((r) => [r.code, sheetErrorsOf(r.errors)]));
  const finished = finishTree(
    rows.map((r) => ({ code: r.code, parentCode: r.parentCode, description: "", macCode: r.macCode, accountTags: r.accountTags })),
    { ...options, carried },
  );
  const changed: Array<{ row: T; hierarchy: string[]; lowestLevel: boolean; errors: GroupError[] }> = [];
  finished.forEach((node, index) => {
    const row = rows[index];
    if (node.lowestLevel !== row.lowestLevel || JSON.stringify(node.hierarchy) !== JSON.stringify(row.hierarchy) || JSON.stringify(node.errors) !== JSON.stringify(row.errors ?? [])) {
      changed.push({ row, hierarchy: node.hierarchy, lowestLevel: node.lowestLevel, errors: node.errors });
    }
  });
  return changed;
}
