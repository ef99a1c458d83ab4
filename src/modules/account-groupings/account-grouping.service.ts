import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { accountGroupingColumns } from "./account-grouping.columns.js";
import type { ImportAccountGroupingInput, UpdateAccountGroupingInput } from "./account-grouping.inputs.js";
import { readCchGroupTrialBalance } from "./cch-trial-balance.js";
import { finishTree, groupsFromPaths, type GroupInput, type GroupNode } from "./grouping-tree.js";
import { librariesUsingGrouping } from "./library-usage.js";
import { assertLocalizedText, displayText, english, type LocalizedText } from "./localized-text.js";
import { loadMacLevels } from "./mac-codes.js";
import { readTemplateWorkbook } from "./template-workbook.js";
import { groupingWorkbook } from "./grouping-workbook.js";

const ENTITY = "AccountGrouping";
export type ImportType = ImportAccountGroupingInput["type"];

export function getAccountGrouping(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "accountGrouping", ENTITY, id);
}

export function queryAccountGroupings(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "accountGrouping", columns: accountGroupingColumns }, args);
}

function readOnlySystem(id: string): ConflictError {
  return new ConflictError(`Account grouping ${id} is the system grouping and cannot be changed; import a grouping of your own instead`, { entityId: id, entityType: ENTITY });
}

/** Groups of a grouping still carrying errors; publishing needs none. */
async function groupsWithErrors(tx: Tx, accountGroupingId: string): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<Array<{ code: string }>>(
    "SELECT code FROM account_group WHERE account_grouping_id = $1 AND jsonb_array_length(errors) > 0 ORDER BY order_index LIMIT 50",
    accountGroupingId,
  );
  return rows.map((r) => r.code);
}

export async function updateAccountGrouping(ctx: RequestContext, id: string, input: UpdateAccountGroupingInput) {
  assertContent(input);
  const name = input.name != null ? assertLocalizedText(input.name, "name") : undefined;
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.accountGrouping.findUnique({ where: { id } });
    if (!current) throw new NotFoundError(ENTITY, id);
    if (current.system) throw readOnlySystem(id);
    const data: Prisma.AccountGroupingUpdateInput = {};
    if (name) data.name = name;
    if (input.archived != null) data.archived = input.archived;
    let publishing = false;
    if (input.publishStatus != null && input.publishStatus !== current.publishStatus) {
      if (input.publishStatus !== "PUBLISHED") {
        throw new ValidationError("publishStatus can only be set to PUBLISHED; a published grouping becomes UNPUBLISHED_CHANGES by itself when it changes", {
          identifier: "publishStatus",
          values: [input.publishStatus],
          suggestedValues: ["PUBLISHED"],
        });
      }
      const failing = await groupsWithErrors(tx, id);
      if (failing.length > 0) {
        throw new ConflictError(`Account grouping ${id} cannot be published while groups carry errors (${failing.slice(0, 10).join(", ")}${failing.length > 10 ? ", ..." : ""}); fix them first`, {
          problemType: "ACCOUNT_GROUPING_NODES_CONTAIN_ERRORS",
          identifier: "publishStatus",
          values: failing,
          entityId: id,
          entityType: ENTITY,
        });
      }
      publishing = true;
      data.publishStatus = "PUBLISHED";
      data.publishedDate = new Date();
    }
    const grouping = await saveVersioned(tx.accountGrouping, ENTITY, id, input.version, data as Record<string, unknown>, actor);
    if (publishing) await tx.accountGroup.updateMany({ where: { accountGroupingId: id }, data: { publishedDate: grouping.publishedDate } });
    emit({ type: "account-grouping.updated", entityType: "ACCOUNT_GROUPING", entityId: id, userId: actor.userId, payload: { accountGroupingId: id } });
    return grouping;
  });
}

export async function deleteAccountGrouping(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.accountGrouping.findUnique({ where: { id }, select: { system: true } });
    if (!current) throw new NotFoundError(ENTITY, id);
    if (current.system) throw new ConflictError(`Account grouping ${id} is the system grouping and cannot be deleted`, { problemType: "CANNOT_DELETE", entityId: id, entityType: ENTITY });
    const libraries = await librariesUsingGrouping(tx, id);
    if (libraries.length > 0) {
      throw new ConflictError(`Account grouping ${id} is used by library ${libraries.join(", ")}; change those libraries first`, {
        problemType: "ACCOUNT_GROUPING_IN_USE_BY_LIBRARY",
        values: libraries,
        entityId: id,
        entityType: ENTITY,
      });
    }
    await tx.accountGrouping.delete({ where: { id } });
    emit({ type: "account-grouping.deleted", entityType: "ACCOUNT_GROUPING", entityId: id, userId: actor.userId, payload: { accountGroupingId: id } });
    return { id };
  });
}

/** Reads a grouping file of the given layout into finished groups (errors per group included). */
export async function parseGroupingFile(ctx: RequestContext, type: ImportType, bytes: Buffer) {
  const contents = type === "PLATFORM_TEMPLATE" ? await readTemplateWorkbook(bytes) : { ...(await readCchGroupTrialBalance(bytes)), codeDisplayName: "Group", delimiter: "." };
  const { groups, sheetErrors } = groupsFromPaths(contents.rows);
  return { codeDisplayName: contents.codeDisplayName, delimiter: contents.delimiter, groups, sheetErrors, macLevels: await loadMacLevels(ctx.app.pool) };
}

function groupRow(node: GroupNode, accountGroupingId: string, audit: ReturnType<typeof createAudit>) {
  return {
    ...audit,
    accountGroupingId,
    code: node.code,
    parentCode: node.parentCode,
    description: english(node.description),
    hierarchy: node.hierarchy,
    lowestLevel: node.lowestLevel,
    macCode: node.macCode,
    accountTags: node.accountTags,
    orderIndex: node.orderIndex,
    errors: node.errors,
  };
}

/**
 * POST /account-groupings/import-from-chunked-file: a new grouping (DRAFT, not MAC) from a template
 * workbook or a CCH group trial balance. Groups that break a rule are stored with their errors
 * (to be fixed with PUT /account-groups/{id} or an append); a file that cannot be read at all is a 400.
 */
export async function importAccountGrouping(ctx: RequestContext, input: { name: string; type: ImportType }, bytes: Buffer) {
  assertContent(input);
  const parsed = await parseGroupingFile(ctx, input.type, bytes);
  const nodes = finishTree(parsed.groups, { mac: false, macLevels: parsed.macLevels, carried: parsed.sheetErrors });
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const grouping = await tx.accountGrouping.create({
      data: {
        ...createAudit(actor),
        name: english(input.name),
        codeDisplayName: english(parsed.codeDisplayName ?? "Code"),
        delimiter: parsed.delimiter ?? ".",
        mac: false,
        system: false,
        archived: false,
        publishStatus: "DRAFT",
      },
    });
    await tx.accountGroup.createMany({ data: nodes.map((node) => groupRow(node, grouping.id, createAudit(actor))) });
    emit({ type: "account-grouping.created", entityType: "ACCOUNT_GROUPING", entityId: grouping.id, userId: actor.userId, payload: { accountGroupingId: grouping.id } });
    return grouping;
  });
}

/**
 * POST /account-groupings/{id}/append-from-chunked-file: the file (template layout, typically an
 * edited export) adds groups and updates the description, parent, MAC code and tags of groups whose
 * code it names; groups it does not name stay. The whole tree is then re-derived.
 */
export async function appendToAccountGrouping(ctx: RequestContext, id: string, bytes: Buffer) {
  const parsed = await parseGroupingFile(ctx, "PLATFORM_TEMPLATE", bytes);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.accountGrouping.findUnique({ where: { id } });
    if (!current) throw new NotFoundError(ENTITY, id);
    if (current.system) throw readOnlySystem(id);
    const stored = await tx.accountGroup.findMany({ where: { accountGroupingId: id }, orderBy: { orderIndex: "asc" } });
    const incoming = new Map(parsed.groups.map((g) => [g.code, g]));
    const merged: GroupInput[] = stored.map((row) => {
      const update = incoming.get(row.code);
      incoming.delete(row.code);
      return update
        ? { ...update, macCode: update.macCode ?? row.macCode, accountTags: update.accountTags.length > 0 ? update.accountTags : row.accountTags }
        : { code: row.code, parentCode: row.parentCode, description: displayText(row.description) || row.code, macCode: row.macCode, accountTags: row.accountTags };
    });
    merged.push(...incoming.values());
    const nodes = finishTree(merged, { mac: current.mac, macLevels: parsed.macLevels, carried: parsed.sheetErrors });
    const byCode = new Map(stored.map((row) => [row.code, row]));
    for (const node of nodes) {
      const row = byCode.get(node.code);
      if (!row) {
        await tx.accountGroup.create({ data: groupRow(node, id, createAudit(actor)) });
        continue;
      }
      const description: LocalizedText = { ...row.description, en: node.description };
      const next = { parentCode: node.parentCode, description, hierarchy: node.hierarchy, lowestLevel: node.lowestLevel, macCode: node.macCode, accountTags: node.accountTags, orderIndex: node.orderIndex, errors: node.errors };
      const before = { parentCode: row.parentCode, description: row.description, hierarchy: row.hierarchy, lowestLevel: row.lowestLevel, macCode: row.macCode, accountTags: row.accountTags, orderIndex: row.orderIndex, errors: row.errors };
      if (JSON.stringify(next) !== JSON.stringify(before)) {
        await saveVersioned(tx.accountGroup, "AccountGroup", row.id, undefined, next, actor);
      }
    }
    const grouping = await saveVersioned(tx.accountGrouping, ENTITY, id, undefined, current.publishStatus === "PUBLISHED" ? { publishStatus: "UNPUBLISHED_CHANGES" } : {}, actor);
    emit({ type: "account-grouping.updated", entityType: "ACCOUNT_GROUPING", entityId: id, userId: actor.userId, payload: { accountGroupingId: id } });
    return grouping;
  });
}

/** The grouping as a template workbook (exports), readable again by import and append. */
export async function accountGroupingWorkbook(db: { accountGrouping: Tx["accountGrouping"]; accountGroup: Tx["accountGroup"] }, id: string): Promise<{ fileName: string; bytes: Buffer }> {
  const grouping = await db.accountGrouping.findUnique({ where: { id } });
  if (!grouping) throw new NotFoundError(ENTITY, id);
  return groupingWorkbook(grouping, await db.accountGroup.findMany({ where: { accountGroupingId: id }, orderBy: { orderIndex: "asc" } }));
}

export type { Actor };
