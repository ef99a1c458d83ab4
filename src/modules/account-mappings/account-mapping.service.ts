import { NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, touchAudit, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { newId } from "../../core/ids.js";
import { accountMappingColumns } from "./account-mapping.columns.js";
import type { UpdateAccountMappingInput } from "./account-mapping.inputs.js";
import { engagementGroups, inferMappings, loadInferenceContext, type DiscoveredAccount, type Inference } from "./inference/index.js";

const ENTITY = "AccountMapping";
export { ACCOUNT_MAPPING_STATUSES } from "./account-mapping.columns.js";

export function getAccountMapping(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "accountMapping", ENTITY, id);
}

export function queryAccountMappings(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "accountMapping", columns: accountMappingColumns }, args);
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

/**
 * POST /account-mappings/verify: every mapping of the engagement becomes VERIFIED (spec 4.3: "marks
 * all account mappings of that engagement verified"). Accounts without a group are verified as they
 * are: they keep no code, stay counted as unmapped (analysis status `unmappedAccountMappingCount`),
 * and no longer hold the analysis back; the engine scores them in its fallback risk group.
 */
export async function verifyAccountMappings(ctx: RequestContext, engagementId: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    await assertEngagement(tx, engagementId);
    const verified = await tx.accountMapping.updateMany({
      where: { engagementId, status: { not: "VERIFIED" } },
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

const accountKey = (account: string, fundId: string | null | undefined) => `${account}\u0000${fundId ?? ""}`;

/**
 * The inference for the accounts a source brought that the engagement does not know yet (or knows
 * only UNMAPPED), computed before the transaction that records them: it is the CPU-heavy part of
 * recording (a few hundred milliseconds for 20,000 accounts), which need not hold that transaction.
 */
export async function inferDiscoveredAccounts(db: Tx, engagementId: string, accounts: DiscoveredAccount[]): Promise<ReadonlyMap<string, Inference>> {
  const { accounts: distinct, known } = await knownMappings(db, engagementId, accounts);
  const toInfer = distinct.filter((a) => (known.get(accountKey(a.account, a.fundId))?.status ?? "UNMAPPED") === "UNMAPPED");
  if (toInfer.length === 0) return new Map();
  const inferred = inferMappings(toInfer, await loadInferenceContext(db, engagementId, toInfer.map((a) => a.account)));
  return new Map(toInfer.map((a, i) => [accountKey(a.account, a.fundId), inferred[i]]));
}

/** The first of each (account, fund) and the engagement's mappings of them. */
async function knownMappings(db: Tx, engagementId: string, input: DiscoveredAccount[]) {
  const firstOfEach = new Map<string, DiscoveredAccount>();
  for (const a of input) if (!firstOfEach.has(accountKey(a.account, a.fundId))) firstOfEach.set(accountKey(a.account, a.fundId), a);
  const accounts = [...firstOfEach.values()];
  const existing = await db.$queryRaw<Array<{ id: string; account: string; fundId: string | null; accountDescription: string | null; status: string; usedByAnalysisSources: string[] }>>`
    SELECT id, account, fund_id AS "fundId", account_description AS "accountDescription", status, used_by_analysis_sources AS "usedByAnalysisSources"
      FROM account_mapping WHERE engagement_id = ${engagementId} AND account = ANY (${[...new Set(accounts.map((a) => a.account))]}::text[])`;
  return { accounts, known: new Map(existing.map((m) => [accountKey(m.account, m.fundId), m])) };
}

/**
 * For ingestion: records the accounts an analysis source brought, inside the caller's transaction.
 * New accounts get a mapping with the group inferred from everything the import knows (inference/,
 * one pass for all of them; `inferred` when the caller computed it before its transaction with
 * `inferDiscoveredAccounts`); known ones keep their mapping and gain the source in
 * usedByAnalysisSources, except that one still UNMAPPED is inferred again with what this source adds
 * (a chart of accounts' types after the ledger, say). Emits `unmapped.accounts` when new accounts
 * could not be mapped.
 */
export async function recordDiscoveredAccounts(
  tx: Tx,
  emit: Emit,
  actor: Actor,
  input: { engagementId: string; analysisSourceId?: string | null; accounts: DiscoveredAccount[]; inferred?: ReadonlyMap<string, Inference> },
): Promise<{ created: number; updated: number; unmapped: number }> {
  const { accounts, known } = await knownMappings(tx, input.engagementId, input.accounts);
  const fresh = accounts.filter((a) => !known.has(accountKey(a.account, a.fundId)));
  const retried = accounts.filter((a) => known.get(accountKey(a.account, a.fundId))?.status === "UNMAPPED");
  const missing = [...fresh, ...retried].filter((a) => !input.inferred?.has(accountKey(a.account, a.fundId)));
  const computed = missing.length === 0 ? [] : inferMappings(missing, await loadInferenceContext(tx, input.engagementId, missing.map((a) => a.account)));
  const inferredNow = new Map(missing.map((a, i) => [accountKey(a.account, a.fundId), computed[i]]));
  const inferenceOf = (a: DiscoveredAccount) => input.inferred?.get(accountKey(a.account, a.fundId)) ?? inferredNow.get(accountKey(a.account, a.fundId))!;

  const rows = fresh.map((account) => ({ ...account, code: inferenceOf(account).code, status: inferenceOf(account).status }));
  await insertMappings(tx, input.engagementId, rows, input.analysisSourceId ?? null, actor);

  const newCode = new Map(retried.map((a) => [accountKey(a.account, a.fundId), inferenceOf(a).code]));
  const touched: Touch[] = [];
  for (const account of accounts) {
    const mapping = known.get(accountKey(account.account, account.fundId));
    if (!mapping) continue;
    const code = newCode.get(accountKey(account.account, account.fundId)) ?? null;
    const newSource = input.analysisSourceId != null && !mapping.usedByAnalysisSources.includes(input.analysisSourceId);
    const description = mapping.accountDescription ?? account.accountDescription ?? null;
    if (newSource || code !== null || description !== mapping.accountDescription) touched.push({ id: mapping.id, description, code });
  }
  const unmapped = rows.filter((r) => r.code === null).length;
  const updated = await touchKnownMappings(tx, touched, input.analysisSourceId ?? null, actor);
  if (unmapped > 0) emit({ type: "unmapped.accounts", entityType: "ENGAGEMENT", entityId: input.engagementId, userId: actor.userId, payload: { engagementId: input.engagementId, targetUserId: actor.userId, unmappedCount: unmapped } });
  return { created: rows.length, updated, unmapped };
}

/**
 * New mappings as one INSERT over arrays: a chart of thousands of accounts is one statement (Prisma's
 * createMany takes about a minute for 20,000 rows, past the ingestion transaction's timeout).
 */
async function insertMappings(
  tx: Tx,
  engagementId: string,
  rows: Array<{ account: string; accountDescription?: string | null; fundId?: string | null; code: string | null; status: string }>,
  analysisSourceId: string | null,
  actor: Actor,
): Promise<void> {
  if (rows.length === 0) return;
  const audit = createAudit(actor);
  const column = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
  await tx.$executeRaw`
    INSERT INTO account_mapping (id, version, creation_date, last_modified_date, created_user_id, created_user_name, last_modified_user_id, last_modified_user_name,
                                 engagement_id, account, account_description, fund_id, code, status, used_by_analysis_sources)
    SELECT r.id, 0, ${audit.creationDate}, ${audit.lastModifiedDate}, ${audit.createdUserId}, ${audit.createdUserName}, ${audit.lastModifiedUserId}, ${audit.lastModifiedUserName},
           ${engagementId}, r.account, r.description, r.fund_id, r.code, r.status,
           CASE WHEN ${analysisSourceId}::text IS NULL THEN '{}'::text[] ELSE ARRAY[${analysisSourceId}::text] END
      FROM unnest(${column(() => newId())}::text[], ${column((r) => r.account)}::text[], ${column((r) => r.accountDescription ?? null)}::text[],
                  ${column((r) => r.fundId ?? null)}::text[], ${column((r) => r.code)}::text[], ${column((r) => r.status)}::text[])
           AS r(id, account, description, fund_id, code, status)`;
}

interface Touch {
  id: string;
  description: string | null;
  /** A group found now for a mapping that was UNMAPPED. */
  code: string | null;
}

/**
 * Known accounts met again, as one statement (a ledger re-imported into an engagement meets every
 * account again): the source joins `usedByAnalysisSources`, a missing description is filled, and an
 * UNMAPPED mapping takes the group inferred now.
 */
async function touchKnownMappings(tx: Tx, touched: Touch[], analysisSourceId: string | null, actor: Actor): Promise<number> {
  if (touched.length === 0) return 0;
  const audit = touchAudit(actor);
  return tx.$executeRaw`
    UPDATE account_mapping m
       SET used_by_analysis_sources = CASE WHEN ${analysisSourceId}::text IS NULL OR ${analysisSourceId}::text = ANY (m.used_by_analysis_sources)
                                           THEN m.used_by_analysis_sources ELSE array_append(m.used_by_analysis_sources, ${analysisSourceId}::text) END,
           account_description = coalesce(m.account_description, t.description),
           code = CASE WHEN m.status = 'UNMAPPED' AND t.code IS NOT NULL THEN t.code ELSE m.code END,
           status = CASE WHEN m.status = 'UNMAPPED' AND t.code IS NOT NULL THEN 'INFERRED' ELSE m.status END,
           version = m.version + 1,
           last_modified_date = ${audit.lastModifiedDate},
           last_modified_user_id = ${audit.lastModifiedUserId},
           last_modified_user_name = ${audit.lastModifiedUserName}
      FROM unnest(${touched.map((t) => t.id)}::text[], ${touched.map((t) => t.description)}::text[], ${touched.map((t) => t.code)}::text[]) AS t(id, description, code)
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

/**
 * Counts for an analysis's readiness (analysis status): accounts with a group (confirmed, or
 * INFERRED), accounts without one (UNMAPPED, or verified without a group), and mappings nobody has
 * verified yet, which hold a general ledger analysis back (UNVERIFIED_ACCOUNT_MAPPINGS).
 */
export async function accountMappingCounts(db: Pick<Tx, "$queryRaw">, engagementId: string) {
  const [counts] = await db.$queryRaw<Array<Record<"mapped" | "inferred" | "unmapped" | "unverified", number>>>`
    SELECT count(*) FILTER (WHERE code IS NOT NULL AND status <> 'INFERRED')::int AS mapped,
           count(*) FILTER (WHERE code IS NOT NULL AND status = 'INFERRED')::int AS inferred,
           count(*) FILTER (WHERE code IS NULL)::int AS unmapped,
           count(*) FILTER (WHERE status <> 'VERIFIED')::int AS unverified
      FROM account_mapping WHERE engagement_id = ${engagementId}`;
  return {
    mappedAccountMappingCount: counts.mapped,
    inferredAccountMappingCount: counts.inferred,
    unmappedAccountMappingCount: counts.unmapped,
    unverifiedAccountMappingCount: counts.unverified,
  };
}
