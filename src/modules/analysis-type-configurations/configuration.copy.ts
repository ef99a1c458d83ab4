import { createAudit, type Actor } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";
import { copyLibraryRiskRanges } from "../risk-ranges/risk-range.copy.js";
import { analysisTypeKeyOf, CONTROL_POINT_BUNDLE_VERSION, defaultConfiguration, type Configuration } from "../catalogue/control-points.data.js";

/**
 * Configurations are copied, never shared: library -> library (a new library based on another),
 * library -> engagement (engagement creation), engagement -> analysis (analysis creation). Each
 * copy is a new row; later edits to either side stay on that side.
 */
type Scope = { libraryId: string } | { engagementId: string } | { analysisId: string };

interface Source {
  analysisTypeId: string;
  system: boolean;
  controlPointBundleVersion: string | null;
}

export const configurationOf = (row: { configuration: Configuration }) => row.configuration;

async function insertCopy(tx: Tx, scope: Scope, source: Source, configuration: Configuration, actor: Actor) {
  return tx.analysisTypeConfiguration.create({
    data: {
      ...createAudit(actor),
      ...scope,
      analysisTypeId: source.analysisTypeId,
      system: source.system,
      template: "libraryId" in scope,
      controlPointBundleVersion: source.controlPointBundleVersion,
      configuration,
    },
  });
}

/** Points copied risk groups at the copied risk ranges (ids not in the map are kept). */
export function remapRiskRanges(configuration: Configuration, idMap: ReadonlyMap<string, string>): Configuration {
  const map = (id: string) => idMap.get(id) ?? id;
  return {
    ...configuration,
    riskGroups: configuration.riskGroups.map((group) => ({
      ...group,
      applicableRiskRanges: group.applicableRiskRanges.map(map),
      selectedRiskRange: group.selectedRiskRange ? map(group.selectedRiskRange) : null,
    })),
  };
}

/** Account filters name codes of one account grouping; they mean nothing under another. */
export function resetAccountFilters(configuration: Configuration): Configuration {
  return { ...configuration, riskGroups: configuration.riskGroups.map((group) => ({ ...group, filter: { values: [] } })) };
}

export async function copyLibraryConfigurations(
  tx: Tx,
  fromLibraryId: string,
  toLibraryId: string,
  analysisTypeIds: readonly string[],
  transform: (configuration: Configuration) => Configuration,
  actor: Actor,
): Promise<void> {
  const sources = await tx.analysisTypeConfiguration.findMany({ where: { libraryId: fromLibraryId, analysisTypeId: { in: [...analysisTypeIds] } }, orderBy: { id: "asc" } });
  for (const source of sources) await insertCopy(tx, { libraryId: toLibraryId }, source, transform(configurationOf(source)), actor);
}

/** The system default configuration of an analysis type, for a library that just gained the type. */
export async function createDefaultLibraryConfiguration(tx: Tx, libraryId: string, analysisTypeId: string, riskRangeId: string, actor: Actor): Promise<void> {
  const key = analysisTypeKeyOf(analysisTypeId);
  if (!key) throw new Error(`analysis type ${analysisTypeId} has no default configuration`);
  const source: Source = { analysisTypeId, system: true, controlPointBundleVersion: CONTROL_POINT_BUNDLE_VERSION };
  await insertCopy(tx, { libraryId }, source, defaultConfiguration(key, riskRangeId), actor);
}

/**
 * At engagement creation: the engagement gets its own copy of each of its library's
 * configurations, and of the risk ranges they select, so later library edits never reach it.
 */
export async function copyLibraryConfigurationsToEngagement(tx: Tx, engagement: { id: string; libraryId: string }, actor: Actor): Promise<void> {
  const riskRangeIds = await copyLibraryRiskRanges(tx, engagement.libraryId, { engagementId: engagement.id }, "all", actor);
  const sources = await tx.analysisTypeConfiguration.findMany({ where: { libraryId: engagement.libraryId }, orderBy: { id: "asc" } });
  for (const source of sources) await insertCopy(tx, { engagementId: engagement.id }, source, remapRiskRanges(configurationOf(source), riskRangeIds), actor);
}

/**
 * Analysis types added to a library in use: each of its engagements without a configuration of
 * such a type gets a copy now (with the risk ranges it selects), as it would have at creation.
 * Copies an engagement already holds (a type removed and added again) stay as they are.
 */
export async function copyAddedLibraryTypesToEngagements(tx: Tx, libraryId: string, analysisTypeIds: readonly string[], actor: Actor): Promise<void> {
  if (analysisTypeIds.length === 0) return;
  const sources = await tx.analysisTypeConfiguration.findMany({ where: { libraryId, analysisTypeId: { in: [...analysisTypeIds] } }, orderBy: { id: "asc" } });
  const engagements = await tx.engagement.findMany({ where: { libraryId }, select: { id: true } });
  for (const engagement of engagements) {
    const held = await tx.analysisTypeConfiguration.findMany({ where: { engagementId: engagement.id, analysisTypeId: { in: [...analysisTypeIds] } }, select: { analysisTypeId: true } });
    const missing = analysisTypeIds.filter((type) => !held.some((h) => h.analysisTypeId === type));
    if (missing.length === 0) continue;
    const riskRangeIds = await copyLibraryRiskRanges(tx, libraryId, { engagementId: engagement.id }, missing, actor);
    for (const source of sources.filter((s) => missing.includes(s.analysisTypeId))) {
      await insertCopy(tx, { engagementId: engagement.id }, source, remapRiskRanges(configurationOf(source), riskRangeIds), actor);
    }
  }
}

/** At analysis creation: the analysis gets its own copy of its engagement's configuration for its type. */
export async function copyEngagementConfigurationToAnalysis(tx: Tx, analysis: { id: string; engagementId: string; analysisTypeId: string }, actor: Actor): Promise<boolean> {
  const source = await tx.analysisTypeConfiguration.findFirst({ where: { engagementId: analysis.engagementId, analysisTypeId: analysis.analysisTypeId } });
  if (!source) return false;
  await insertCopy(tx, { analysisId: analysis.id }, source, configurationOf(source), actor);
  return true;
}
