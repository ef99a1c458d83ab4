import { NotFoundError } from "../../core/errors.js";
import { createAudit, findEntity, queryEntities, type Actor, type PageArgs } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { libraryGroupingId } from "../account-groupings/library-usage.js";
import { SYSTEM_ACCOUNT_GROUPING_ID } from "../account-groupings/mac-codes.js";
import { groupingWorkbook } from "../account-groupings/grouping-workbook.js";
import { engagementAccountGroupingColumns, GROUP_ORIGINS } from "./engagement-account-grouping.columns.js";

const ENTITY = "EngagementAccountGrouping";
export { GROUP_ORIGINS };
export type GroupOrigin = (typeof GROUP_ORIGINS)[number];

export function getEngagementAccountGrouping(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "engagementAccountGrouping", ENTITY, id);
}

export function queryEngagementAccountGroupings(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "engagementAccountGrouping", columns: engagementAccountGroupingColumns }, args);
}

interface NewEngagement {
  id: string;
  libraryId: string;
  settingsBasedOnEngagementId?: string | null;
}

/**
 * Gives a new engagement its own copy of an account grouping, inside the engagement's creation
 * transaction: the grouping of the engagement it is based on (origin IMPORTED_FROM_ENGAGEMENT,
 * aliases and hidden flags kept), otherwise its library's grouping (IMPORTED_FROM_LIBRARY), the
 * system MAC grouping when the library names none. The copy shares no rows with its source, so
 * later edits on either side never reach the other.
 */
export async function copyAccountGroupingToEngagement(tx: Tx, engagement: NewEngagement, actor: Actor): Promise<void> {
  if (engagement.settingsBasedOnEngagementId) {
    const source = await tx.engagementAccountGrouping.findUnique({
      where: { engagementId: engagement.settingsBasedOnEngagementId },
      include: { groups: { orderBy: { orderIndex: "asc" } } },
    });
    if (source) {
      await insertCopy(tx, engagement.id, actor, source, "IMPORTED_FROM_ENGAGEMENT", source.groups);
      return;
    }
  }
  const groupingId = (await libraryGroupingId(tx, engagement.libraryId)) ?? SYSTEM_ACCOUNT_GROUPING_ID;
  const grouping =
    (await tx.accountGrouping.findUnique({ where: { id: groupingId }, include: { groups: { orderBy: { orderIndex: "asc" } } } })) ??
    (await tx.accountGrouping.findUnique({ where: { id: SYSTEM_ACCOUNT_GROUPING_ID }, include: { groups: { orderBy: { orderIndex: "asc" } } } }));
  if (!grouping) throw new Error(`the system account grouping ${SYSTEM_ACCOUNT_GROUPING_ID} is missing; migrations did not run`);
  await insertCopy(tx, engagement.id, actor, { ...grouping, accountGroupingId: grouping.id }, "IMPORTED_FROM_LIBRARY", grouping.groups);
}

interface SourceGrouping {
  accountGroupingId: string | null;
  name: PrismaJson.LocalizedText;
  codeDisplayName: PrismaJson.LocalizedText;
  delimiter: string;
  mac: boolean;
}

interface SourceGroup {
  code: string;
  parentCode: string | null;
  description: PrismaJson.LocalizedText;
  hierarchy: string[];
  lowestLevel: boolean;
  macCode: string | null;
  accountTags: string[];
  orderIndex: number;
  publishedDate: Date | null;
  errors: PrismaJson.AccountGroupErrors;
  alias?: string | null;
  hidden?: boolean;
}

async function insertCopy(tx: Tx, engagementId: string, actor: Actor, source: SourceGrouping, origin: GroupOrigin, groups: SourceGroup[]) {
  const copy = await tx.engagementAccountGrouping.create({
    data: {
      ...createAudit(actor),
      engagementId,
      accountGroupingId: source.accountGroupingId,
      name: source.name,
      codeDisplayName: source.codeDisplayName,
      delimiter: source.delimiter,
      mac: source.mac,
    },
  });
  await tx.engagementAccountGroup.createMany({
    data: groups.map((g) => ({
      ...createAudit(actor),
      engagementAccountGroupingId: copy.id,
      code: g.code,
      parentCode: g.parentCode,
      description: g.description,
      hierarchy: g.hierarchy,
      lowestLevel: g.lowestLevel,
      macCode: g.macCode,
      accountTags: g.accountTags,
      orderIndex: g.orderIndex,
      publishedDate: g.publishedDate,
      errors: g.errors,
      alias: g.alias ?? null,
      hidden: g.hidden ?? false,
      origin,
    })),
  });
}

/** The engagement grouping as a template workbook (exports); hidden groups are included. */
export async function engagementAccountGroupingWorkbook(db: { engagementAccountGrouping: Tx["engagementAccountGrouping"]; engagementAccountGroup: Tx["engagementAccountGroup"] }, id: string) {
  const grouping = await db.engagementAccountGrouping.findUnique({ where: { id } });
  if (!grouping) throw new NotFoundError(ENTITY, id);
  return groupingWorkbook(grouping, await db.engagementAccountGroup.findMany({ where: { engagementAccountGroupingId: id }, orderBy: { orderIndex: "asc" } }));
}
