import { ConflictError, ForbiddenError, ValidationError } from "../../core/errors.js";
import { findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { analysisTypeKeyOf, controlPointFamilyOf, defaultConfiguration, type Configuration } from "../catalogue/control-points.data.js";
import { configurationColumns } from "./configuration.columns.js";
import { configurationOf } from "./configuration.copy.js";
import { applyControlPointUpdates, applyRiskGroupUpdates, matchesDefaults, resetToDefaults, type GuardedChange } from "./configuration.rules.js";
import type { UpdateAnalysisTypeConfigurationInput } from "./configuration.inputs.js";

const ENTITY = "AnalysisTypeConfiguration";

/** The library permission each change needs below library level (engagement, analysis). */
const PERMISSION_FOR: Record<GuardedChange, "controlPointWeightPermission" | "riskScoreAndGroupsSelectionPermission" | "controlPointSettingsPermission" | "controlPointSelectionPermission"> = {
  controlPointWeights: "controlPointWeightPermission",
  controlPointSettings: "controlPointSettingsPermission",
  customControlPoints: "controlPointSelectionPermission",
  disabled: "riskScoreAndGroupsSelectionPermission",
  riskRanges: "riskScoreAndGroupsSelectionPermission",
  filter: "controlPointSettingsPermission",
};

export function getConfiguration(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisTypeConfiguration", ENTITY, id);
}

export function queryConfigurations(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisTypeConfiguration", columns: configurationColumns }, args);
}

/** Where the configuration lives decides which library governs it and which risk ranges it may select. */
async function scopeOf(ctx: RequestContext, row: { libraryId: string | null; engagementId: string | null; analysisId: string | null }) {
  if (row.libraryId) {
    const library = await ctx.prisma.library.findUniqueOrThrow({ where: { id: row.libraryId } });
    return { library, libraryLevel: true, riskRangeScope: { libraryId: library.id } };
  }
  const engagementId = row.engagementId ?? (await ctx.prisma.analysis.findUniqueOrThrow({ where: { id: row.analysisId! }, select: { engagementId: true } })).engagementId;
  const engagement = await ctx.prisma.engagement.findUniqueOrThrow({ where: { id: engagementId }, select: { libraryId: true } });
  const library = await ctx.prisma.library.findUniqueOrThrow({ where: { id: engagement.libraryId } });
  return { library, libraryLevel: false, riskRangeScope: { engagementId } };
}

export async function updateConfiguration(ctx: RequestContext, id: string, input: UpdateAnalysisTypeConfigurationInput) {
  const current = await getConfiguration(ctx, id);
  const scope = await scopeOf(ctx, current);
  if (scope.libraryLevel && scope.library.system) {
    throw new ConflictError(`Configuration ${id} belongs to system library ${scope.library.id} and is read-only; create a library based on it`, { entityId: id, entityType: ENTITY });
  }
  const key = analysisTypeKeyOf(current.analysisTypeId);
  const defaults: Configuration | null = key ? defaultConfiguration(key, null) : null;
  let configuration = configurationOf(current);
  if (input.system && defaults) configuration = resetToDefaults(configuration, defaults);
  const ranges = await ctx.prisma.riskRange.findMany({ where: { ...scope.riskRangeScope, analysisTypeId: current.analysisTypeId }, select: { id: true } });
  const family = controlPointFamilyOf(current.analysisTypeId);
  const points = family ? applyControlPointUpdates(configuration, family, input.configuration ?? {}) : { configuration, problems: [], changes: [] };
  const applied = applyRiskGroupUpdates(points.configuration, input.configuration?.riskGroups ?? [], new Set(ranges.map((r) => r.id)));
  applied.problems.unshift(...points.problems);
  applied.changes.push(...points.changes);
  if (applied.problems.length > 0) throw ValidationError.of(applied.problems);
  if (!scope.libraryLevel) {
    const refused = applied.changes.find((c) => !scope.library[PERMISSION_FOR[c.change]]);
    if (refused) {
      throw new ForbiddenError(`Library ${scope.library.id} does not allow changing ${refused.identifier} in engagements (${PERMISSION_FOR[refused.change]} is false)`, {
        identifier: refused.identifier,
        entityId: scope.library.id,
        entityType: "Library",
      });
    }
  }
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const saved = await saveVersioned(
      tx.analysisTypeConfiguration,
      ENTITY,
      id,
      input.version,
      { configuration: applied.configuration, system: defaults ? matchesDefaults(applied.configuration, defaults) : false },
      actor,
    );
    emit({ type: "analysis-type-configuration.updated", entityType: "ANALYSIS_TYPE_CONFIGURATION", entityId: id, userId: actor.userId, payload: { analysisTypeConfigurationId: id } });
    return saved;
  });
}
