import { NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, touchAudit, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { displayText } from "../account-groupings/localized-text.js";
import { accountMappingColumns } from "./account-mapping.columns.js";
import { indexCandidates, inferMapping, type CandidateGroup, type CandidateIndex, type DiscoveredAccount } from "./mapping-inference.js";

const ENTITY = "AccountMapping";
export { ACCOUNT_MAPPING_STATUSES } from "./account-mapping.columns.js";
/** Mapped but not yet confirmed by a person: what POST /account-mappings/verify confirms. */
export const UNVERIFIED_STATUSES = ["MANUAL", "MAC_CODE", "MODIFIED_MAC", "UNVERIFIED", "INFERRED"] as const;

export interface UpdateAccountMappingInput {
  code?: string | null;
  accountTags?: string[] | null;
  version: number;
}

export function getAccountMapping(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "accountMapping", ENTITY, id);
}

export function queryAccountMappings(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "accountMapping", columns: accountMappingColumns }, args);
}

async function engagementGroups(tx: Tx, engagementId: string): Promise<{ mac: boolean; groups: CandidateGroup[] }> {
  const grouping = await tx.engagementAccountGrouping.findUnique({ where: { engagementId }, include: { groups: { orderBy: { orderIndex: "asc" } } } });
  if (!grouping) return { mac: false, groups: [] };
  return {
    mac: grouping.mac,
    groups: grouping.groups.map((g) => ({ code: g.code, lowestLevel: g.lowestLevel, macCode: g.macCode, description: displayText(g.description), alias: g.alias })),
  };
}

/**
 * PUT /account-mappings/{id}: maps the account to another group of the engagement (a lowest-level
 * one) and/or sets its tags. Changing the group makes the mapping MANUAL (MODIFIED_MAC when it had
 * come from a MAC code), so it needs verifying again.
 */
export async function updateAccountMapping(ctx: RequestContext, id: string, input: UpdateAccountMappingInput) {
  assertContent(input);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.accountMapping.findUnique({ where: { id } });
    if (!current) throw new NotFoundError(ENTITY, id);
    const data: Record<string, unknown> = {};
    if (input.accountTags != null) data.accountTags = [...new Set(input.accountTags)];
    if (input.code !== undefined && input.code !== current.code) {
      if (input.code === null) {
        Object.assign(data, { code: null, status: "UNMAPPED" });
      } else {
        const { groups } = await engagementGroups(tx, current.engagementId);
        const group = groups.find((g) => g.code === input.code);
        if (!group) throw new ValidationError(`code ${input.code} is not a group of the engagement's account grouping`, { identifier: "code", values: [input.code] });
        if (!group.lowestLevel) {
          throw new ValidationError(`code ${input.code} has child groups; accounts map to lowest-level groups`, {
            identifier: "code",
            values: [input.code],
            suggestedValues: groups.filter((g) => g.lowestLevel && g.code.startsWith(input.code!)).slice(0, 20).map((g) => g.code),
          });
        }
        const fromMac = current.status === "MAC_CODE" || current.status === "MODIFIED_MAC";
        Object.assign(data, { code: input.code, status: fromMac ? "MODIFIED_MAC" : "MANUAL" });
      }
    }
    const mapping = await saveVersioned(tx.accountMapping, ENTITY, id, input.version, data, actor);
    emit({ type: "account-mapping.updated", entityType: "ACCOUNT_MAPPING", entityId: id, userId: actor.userId, payload: { accountMappingId: id, engagementId: mapping.engagementId } });
    return mapping;
  });
}

async function assertEngagement(tx: Tx, engagementId: string): Promise<void> {
  if ((await tx.engagement.count({ where: { id: engagementId } })) === 0) throw new NotFoundError("Engagement", engagementId);
}

/** POST /account-mappings/verify: every mapped account of the engagement becomes VERIFIED; unmapped ones stay UNMAPPED. */
export async function verifyAccountMappings(ctx: RequestContext, engagementId: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    await assertEngagement(tx, engagementId);
    const verified = await tx.accountMapping.updateMany({
      where: { engagementId, code: { not: null }, status: { in: [...UNVERIFIED_STATUSES] } },
      data: { status: "VERIFIED", version: { increment: 1 }, lastModifiedDate: new Date(), lastModifiedUserId: actor.userId, lastModifiedUserName: actor.userName },
    });
    const unmapped = await tx.accountMapping.count({ where: { engagementId, code: null } });
    const total = await tx.accountMapping.count({ where: { engagementId } });
    emit({ type: "account-mappings.verified", entityType: "ENGAGEMENT", entityId: engagementId, userId: actor.userId, payload: { engagementId, verifiedCount: verified.count } });
    return { engagementId, verifiedCount: verified.count, unmappedCount: unmapped, totalCount: total };
  });
}

/** POST /account-mappings/delete-unused: removes mappings no analysis source uses any more. */
export async function deleteUnusedAccountMappings(ctx: RequestContext, engagementId: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    await assertEngagement(tx, engagementId);
    const deleted = await tx.accountMapping.deleteMany({ where: { engagementId, usedByAnalysisSources: { isEmpty: true } } });
    emit({ type: "account-mappings.deleted-unused", entityType: "ENGAGEMENT", entityId: engagementId, userId: actor.userId, payload: { engagementId, deletedCount: deleted.count } });
    return { engagementId, deletedCount: deleted.count };
  });
}

/**
 * For ingestion (issue 5): records the accounts an analysis source brought, inside the caller's
 * transaction. New accounts get a mapping with an inferred group where one can be found
 * (see mapping-inference.ts); known ones keep their mapping and gain the source in
 * usedByAnalysisSources. Emits `unmapped.accounts` when new accounts could not be mapped.
 */
export async function recordDiscoveredAccounts(
  tx: Tx,
  emit: Emit,
  actor: Actor,
  input: { engagementId: string; analysisSourceId?: string | null; accounts: DiscoveredAccount[] },
): Promise<{ created: number; updated: number; unmapped: number }> {
  // The engagement's groups are read, and indexed once, only when an account is new.
  let inference: { mac: boolean; candidates: CandidateIndex } | undefined;
  const infer = async (account: DiscoveredAccount) => {
    if (!inference) {
      const { mac, groups } = await engagementGroups(tx, input.engagementId);
      inference = { mac, candidates: indexCandidates(groups) };
    }
    return inferMapping(account, inference.candidates, inference.mac);
  };
  const existing = await tx.accountMapping.findMany({ where: { engagementId: input.engagementId, account: { in: [...new Set(input.accounts.map((a) => a.account))] } } });
  const key = (account: string, fundId: string | null | undefined) => `${account}\u0000${fundId ?? ""}`;
  const known = new Map(existing.map((m) => [key(m.account, m.fundId), m]));
  const result = { created: 0, updated: 0, unmapped: 0 };
  const fresh: Prisma.AccountMappingCreateManyInput[] = [];
  const touched: { id: string; description: string | null }[] = [];
  const seen = new Set<string>();
  for (const account of input.accounts) {
    const k = key(account.account, account.fundId);
    if (seen.has(k)) continue;
    seen.add(k);
    const mapping = known.get(k);
    if (mapping) {
      const newSource = input.analysisSourceId != null && !mapping.usedByAnalysisSources.includes(input.analysisSourceId);
      const description = mapping.accountDescription ?? account.accountDescription ?? null;
      if (newSource || description !== mapping.accountDescription) touched.push({ id: mapping.id, description });
      continue;
    }
    const inferred = await infer(account);
    if (inferred.status === "UNMAPPED") result.unmapped++;
    fresh.push({
      ...createAudit(actor),
      engagementId: input.engagementId,
      account: account.account,
      accountDescription: account.accountDescription ?? null,
      fundId: account.fundId ?? null,
      code: inferred.code,
      status: inferred.status,
      usedByAnalysisSources: input.analysisSourceId ? [input.analysisSourceId] : [],
    });
  }
  if (fresh.length > 0) await tx.accountMapping.createMany({ data: fresh });
  result.created = fresh.length;
  result.updated = await touchKnownMappings(tx, touched, input.analysisSourceId ?? null, actor);
  if (result.unmapped > 0) emit({ type: "unmapped.accounts", entityType: "ENGAGEMENT", entityId: input.engagementId, userId: actor.userId, payload: { engagementId: input.engagementId, unmappedCount: result.unmapped } });
  return result;
}

/**
 * Known accounts met again: the source joins `usedByAnalysisSources` and a missing description is
 * filled, as one statement (a ledger re-imported into an engagement meets every account again).
 */
async function touchKnownMappings(tx: Tx, touched: { id: string; description: string | null }[], analysisSourceId: string | null, actor: Actor): Promise<number> {
  if (touched.length === 0) return 0;
  const audit = touchAudit(actor);
  return tx.$executeRaw`
    UPDATE account_mapping m
       SET used_by_analysis_sources = CASE WHEN ${analysisSourceId}::text IS NULL OR ${analysisSourceId}::text = ANY (m.used_by_analysis_sources)
                                           THEN m.used_by_analysis_sources ELSE array_append(m.used_by_analysis_sources, ${analysisSourceId}::text) END,
           account_description = coalesce(m.account_description, t.description),
           version = m.version + 1,
           last_modified_date = ${audit.lastModifiedDate},
           last_modified_user_id = ${audit.lastModifiedUserId},
           last_modified_user_name = ${audit.lastModifiedUserName}
      FROM unnest(${touched.map((t) => t.id)}::text[], ${touched.map((t) => t.description)}::text[]) AS t(id, description)
     WHERE m.id = t.id`;
}

/**
 * Deleted analysis sources (alone or with their analysis) stop using their accounts' mappings, so
 * delete-unused can remove the mappings nothing uses any more. Inside the deleting transaction.
 */
export async function forgetAnalysisSources(tx: Tx, actor: Actor, engagementId: string, analysisSourceIds: string[]): Promise<number> {
  if (analysisSourceIds.length === 0) return 0;
  const audit = touchAudit(actor);
  return tx.$executeRaw`
    UPDATE account_mapping m
       SET used_by_analysis_sources = ARRAY(SELECT u FROM unnest(m.used_by_analysis_sources) AS u WHERE u <> ALL (${analysisSourceIds}::text[])),
           version = m.version + 1,
           last_modified_date = ${audit.lastModifiedDate},
           last_modified_user_id = ${audit.lastModifiedUserId},
           last_modified_user_name = ${audit.lastModifiedUserName}
     WHERE m.engagement_id = ${engagementId} AND m.used_by_analysis_sources && ${analysisSourceIds}::text[]`;
}

/** Counts for an analysis's readiness (analysis status): mapped, inferred and unmapped accounts of the engagement. */
export async function accountMappingCounts(tx: Pick<Tx, "accountMapping">, engagementId: string) {
  const rows = await tx.accountMapping.groupBy({ by: ["status"], where: { engagementId }, _count: { _all: true } });
  const count = (statuses: string[]) => rows.filter((r) => statuses.includes(r.status)).reduce((sum, r) => sum + r._count._all, 0);
  return {
    mappedAccountMappingCount: count(["MANUAL", "MAC_CODE", "MODIFIED_MAC", "UNVERIFIED", "VERIFIED"]),
    inferredAccountMappingCount: count(["INFERRED"]),
    unmappedAccountMappingCount: count(["UNMAPPED"]),
    unverifiedAccountMappingCount: count([...UNVERIFIED_STATUSES]),
  };
}
