import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import { isForeignKeyViolation } from "../../core/db-errors.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { copyAddedLibraryTypesToEngagements, copyLibraryConfigurations, createDefaultLibraryConfiguration, remapRiskRanges, resetAccountFilters } from "../analysis-type-configurations/configuration.copy.js";
import { copyLibraryRiskRanges, createDefaultRiskRange } from "../risk-ranges/risk-range.copy.js";
import { libraryColumns } from "./library.columns.js";
import type { CreateLibraryInput, UpdateLibraryInput } from "./library.inputs.js";

const ENTITY = "Library";

const SETTING_KEYS = [
  "defaultDelimiter",
  "riskScoreDisplay",
  "controlPointSelectionPermission",
  "controlPointSettingsPermission",
  "controlPointWeightPermission",
  "riskRangeEditPermission",
  "riskScoreAndGroupsSelectionPermission",
  "warningsDismissed",
] as const;

export function getLibrary(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "library", ENTITY, id);
}

export function queryLibraries(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "library", columns: libraryColumns }, args);
}

/** For entities that name a library (engagements, risk ranges): 400 naming the field when it is unknown or archived. */
export async function libraryForReference(ctx: RequestContext, id: string, identifier = "libraryId") {
  const library = await ctx.prisma.library.findUnique({ where: { id } });
  if (!library) throw new ValidationError(`${identifier} ${id} refers to no library`, { identifier, values: [id] });
  if (library.archived) throw new ValidationError(`Library ${id} is archived; unarchive it or choose another`, { identifier, values: [id] });
  return library;
}

/** System libraries are the seeded catalogue: read them, base libraries on them, never change them. */
export function assertNotSystem(library: { id: string; system: boolean }, action: string): void {
  if (library.system) {
    throw new ConflictError(`Library ${library.id} is a system library and cannot be ${action}; create a library based on it instead`, { entityId: library.id, entityType: ENTITY });
  }
}

async function analysisTypeProblems(ctx: RequestContext, ids: readonly string[]): Promise<Problem[]> {
  const found = await ctx.prisma.analysisType.findMany({ where: { id: { in: [...ids] } }, select: { id: true, archived: true } });
  const known = new Map(found.map((t) => [t.id, t]));
  const problems: Problem[] = [];
  ids.forEach((id, index) => {
    const type = known.get(id);
    if (!type || type.archived) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `analysisTypeIds[${index}]`, reason: type ? `Analysis type ${id} is archived` : `${id} is not an analysis type`, values: [id] });
    }
  });
  return problems;
}

async function assertUniqueName(tx: Tx, name: string, exceptId?: string): Promise<void> {
  const clash = await tx.library.findFirst({ where: { name: { equals: name, mode: "insensitive" }, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { id: true } });
  if (clash) throw new ConflictError(`A library named "${name}" already exists`, { problemType: "NON_UNIQUE_VALUE", identifier: "name", values: [name], entityId: clash.id, entityType: ENTITY });
}

/** A type new to the library starts from the system default configuration and risk range. */
async function addDefaultsForTypes(tx: Tx, libraryId: string, analysisTypeIds: readonly string[], actor: Actor): Promise<void> {
  for (const analysisTypeId of analysisTypeIds) {
    const riskRangeId = await createDefaultRiskRange(tx, libraryId, analysisTypeId, actor);
    await createDefaultLibraryConfiguration(tx, libraryId, analysisTypeId, riskRangeId, actor);
  }
}

function settingsOf(input: CreateLibraryInput, base: Record<(typeof SETTING_KEYS)[number], unknown>) {
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, input[key] ?? base[key]])) as Pick<Prisma.LibraryCreateInput, (typeof SETTING_KEYS)[number]>;
}

/**
 * Spec 2.12: a library is created from a base library, copying the base's settings, permissions,
 * risk ranges and analysis type configurations as they are at that moment.
 */
export async function createLibrary(ctx: RequestContext, input: CreateLibraryInput) {
  assertContent(input, ["analysisTypeIds"]);
  const base = await ctx.prisma.library.findUnique({ where: { id: input.basedOnLibraryId } });
  if (!base) throw new ValidationError(`basedOnLibraryId ${input.basedOnLibraryId} refers to no library`, { identifier: "basedOnLibraryId", values: [input.basedOnLibraryId] });
  const analysisTypeIds = [...new Set(input.analysisTypeIds ?? base.analysisTypeIds)];
  const problems = await analysisTypeProblems(ctx, analysisTypeIds);
  const accountGroupingId = input.accountGroupingId ?? base.accountGroupingId;
  const groupingChanged = accountGroupingId !== base.accountGroupingId;
  if (groupingChanged && !input.convertSettings) {
    problems.push({
      problemType: "ILLEGAL_ARGUMENT",
      severity: "ERROR",
      identifier: "convertSettings",
      reason: `accountGroupingId differs from the base library's (${base.accountGroupingId}); send convertSettings: true to convert its settings (risk group account filters are reset)`,
    });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    await assertUniqueName(tx, input.name);
    const library = await tx.library.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        basedOnLibraryId: base.id,
        originalSystemLibraryId: base.system ? base.id : base.originalSystemLibraryId,
        accountGroupingId,
        analysisTypeIds,
        archived: false,
        system: false,
        ...settingsOf(input, base),
        conversionWarnings: groupingChanged ? [groupingChangedWarning(base.accountGroupingId, accountGroupingId)] : [],
      },
    });
    const inherited = analysisTypeIds.filter((id) => base.analysisTypeIds.includes(id));
    const riskRangeIds = await copyLibraryRiskRanges(tx, base.id, { libraryId: library.id }, inherited, actor);
    await copyLibraryConfigurations(tx, base.id, library.id, inherited, (c) => {
      const remapped = remapRiskRanges(c, riskRangeIds);
      return groupingChanged ? resetAccountFilters(remapped) : remapped;
    }, actor);
    await addDefaultsForTypes(tx, library.id, analysisTypeIds.filter((id) => !base.analysisTypeIds.includes(id)), actor);
    emit({ type: "library.created", entityType: "LIBRARY", entityId: library.id, userId: actor.userId, payload: { libraryId: library.id } });
    return library;
  });
}

/**
 * Analysis types may be added to or removed from a library in use (spec 2.12). Engagements keep
 * their own copies, so removing a type here changes only what new engagements get; an added type
 * reaches the library's engagements (a copy each) so that their analyses can use it.
 */
export async function updateLibrary(ctx: RequestContext, id: string, input: UpdateLibraryInput) {
  assertContent(input, ["analysisTypeIds"]);
  const current = await getLibrary(ctx, id);
  assertNotSystem(current, "changed");
  const analysisTypeIds = input.analysisTypeIds ? [...new Set(input.analysisTypeIds)] : current.analysisTypeIds;
  const problems = await analysisTypeProblems(ctx, input.analysisTypeIds ? analysisTypeIds : []);
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    if (input.name != null) await assertUniqueName(tx, input.name, id);
    const data: Record<string, unknown> = { analysisTypeIds };
    if (input.name != null) data.name = input.name;
    if (input.archived != null) data.archived = input.archived;
    for (const key of SETTING_KEYS) if (input[key] !== undefined && input[key] !== null) data[key] = input[key];
    const library = await saveVersioned(tx.library, ENTITY, id, input.version, data, actor);
    const added = analysisTypeIds.filter((t) => !current.analysisTypeIds.includes(t));
    const removed = current.analysisTypeIds.filter((t) => !analysisTypeIds.includes(t));
    if (removed.length > 0) {
      await tx.analysisTypeConfiguration.deleteMany({ where: { libraryId: id, analysisTypeId: { in: removed } } });
      await tx.riskRange.deleteMany({ where: { libraryId: id, analysisTypeId: { in: removed } } });
    }
    await addDefaultsForTypes(tx, id, added, actor);
    await copyAddedLibraryTypesToEngagements(tx, id, added, actor);
    emit({ type: "library.updated", entityType: "LIBRARY", entityId: id, userId: actor.userId, payload: { libraryId: id } });
    return library;
  });
}

export async function deleteLibrary(ctx: RequestContext, id: string) {
  const library = await getLibrary(ctx, id);
  assertNotSystem(library, "deleted");
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const engagements = await tx.engagement.count({ where: { libraryId: id } });
    if (engagements > 0) {
      throw new ConflictError(`Library ${id} is used by ${engagements} engagement(s)`, { problemType: "CANNOT_DELETE", entityId: id, entityType: ENTITY });
    }
    // An engagement created meanwhile trips the foreign key instead: same answer.
    const deleted = await tx.library.deleteMany({ where: { id } }).catch((error: unknown) => {
      throw isForeignKeyViolation(error) ? new ConflictError(`Library ${id} is used by an engagement`, { problemType: "CANNOT_DELETE", entityId: id, entityType: ENTITY }) : error;
    });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "library.deleted", entityType: "LIBRARY", entityId: id, userId: actor.userId, payload: { libraryId: id } });
    return { id };
  });
}

/** Wire reference 8: conversion warnings are problem objects, as in the error body's problems. */
function groupingChangedWarning(baseGroupingId: string | null, groupingId: string | null): Problem {
  return {
    problemType: "FILTER_CONVERSION_FAILED",
    severity: "WARNING",
    identifier: "accountGroupingId",
    reason: "The account grouping differs from the base library's: risk group account filters were reset",
    values: baseGroupingId ? [baseGroupingId] : [],
    ...(groupingId ? { entityId: groupingId, entityType: "ACCOUNT_GROUPING" } : {}),
  };
}
