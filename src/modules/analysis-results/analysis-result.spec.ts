import type { App } from "../../app-types.js";
import { effectiveSettings, type ControlPointFamily, type EngineAccount, type EngineRiskGroup, type EngineSource, type EngineSpec } from "../../engine/index.js";
import { ingestionTables } from "../../ingestion/index.js";
import { controlPointFamilyOf, type Configuration } from "../catalogue/control-points.data.js";
import { analysisTypeById } from "../catalogue/analysis-types.data.js";
import { ANALYSIS_SOURCE_TYPE_IDS, SYSTEM_ACCOUNT_GROUPING_ID } from "../catalogue/ids.js";
import { dateOnly } from "../analyses/analysis.service.js";

/** Sources a run reads besides the journal or detail entries (AP/AR): party lists, opening balances, open and closing items lists. */
const PARTY_LISTS = new Set<string>([ANALYSIS_SOURCE_TYPE_IDS.VENDOR_LIST, ANALYSIS_SOURCE_TYPE_IDS.CUSTOMER_LIST]);
const OPENING_BALANCES = new Set<string>([ANALYSIS_SOURCE_TYPE_IDS.VENDOR_OPENING_BALANCES, ANALYSIS_SOURCE_TYPE_IDS.CUSTOMER_OPENING_BALANCES]);
const OPEN_ITEMS = new Set<string>([ANALYSIS_SOURCE_TYPE_IDS.OPEN_PAYABLES_LIST, ANALYSIS_SOURCE_TYPE_IDS.OPEN_RECEIVABLES_LIST]);
const CLOSING_ITEMS = new Set<string>([ANALYSIS_SOURCE_TYPE_IDS.CLOSING_PAYABLES_LIST, ANALYSIS_SOURCE_TYPE_IDS.CLOSING_RECEIVABLES_LIST]);

type Db = Pick<App, "prisma" | "pool">;

/**
 * Everything the engine needs for one run, read once when the run starts (and stored with the
 * result, so explain and a resumed run see what the run saw): the analysis's configuration copy
 * (risk groups, weights, selected risk ranges, settings, custom control points), its periods and
 * reporting periods, its completed sources and the classification of their accounts.
 */
export async function buildEngineSpec(app: Db, analysisId: string, resultId: string): Promise<EngineSpec> {
  const analysis = await app.prisma.analysis.findUniqueOrThrow({ where: { id: analysisId }, include: { analysisPeriods: { orderBy: { startDate: "asc" } } } });
  const family = controlPointFamilyOf(analysis.analysisTypeId) as ControlPointFamily;
  const type = analysisTypeById(analysis.analysisTypeId);
  const entriesTypes = new Set((type?.sourceConfigurations ?? []).filter((c) => c.required && !c.postAnalysis).map((c) => c.sourceTypeId));
  const configurationRow = await app.prisma.analysisTypeConfiguration.findFirst({ where: { analysisId, analysisTypeId: analysis.analysisTypeId } });
  const configuration: Configuration = configurationRow?.configuration ?? { riskGroups: [] };
  const rangeIds = configuration.riskGroups.map((g) => g.selectedRiskRange).filter((id): id is string => Boolean(id));
  const ranges = new Map((await app.prisma.riskRange.findMany({ where: { id: { in: rangeIds } } })).map((r) => [r.id, r]));
  const riskGroups: EngineRiskGroup[] = configuration.riskGroups.map((g) => {
    const range = g.selectedRiskRange ? ranges.get(g.selectedRiskRange) : undefined;
    return {
      id: g.id,
      name: g.name.en ?? Object.values(g.name)[0] ?? g.id,
      category: g.riskAssertionCategory === "GENERAL" || ["ASSETS", "LIABILITIES_EQUITY", "PROFIT_LOSS"].includes(g.riskAssertionCategory) ? g.riskAssertionCategory : (g.category.en ?? g.riskAssertionCategory),
      general: g.riskAssertionCategory === "GENERAL",
      disabled: g.disabled,
      weights: { ...g.controlPointWeights },
      filter: [...g.filter.values],
      riskRange: range
        ? {
            low: { lowThreshold: range.lowLowThreshold, highThreshold: range.lowHighThreshold },
            medium: { lowThreshold: range.mediumLowThreshold, highThreshold: range.mediumHighThreshold },
            high: { lowThreshold: range.highLowThreshold, highThreshold: range.highHighThreshold },
          }
        : null,
    };
  });

  const sources = await app.prisma.analysisSource.findMany({ where: { analysisId, workflowState: "COMPLETED" }, orderBy: { creationDate: "asc" } });
  const periodOrder = new Map(analysis.analysisPeriods.map((p, i) => [p.id, i]));
  sources.sort((a, b) => (periodOrder.get(a.analysisPeriodId ?? "") ?? 0) - (periodOrder.get(b.analysisPeriodId ?? "") ?? 0));
  const engineSource = async (s: (typeof sources)[number]): Promise<EngineSource> => {
    const tables = ingestionTables(s.id);
    const columns = ((s.parse as { columns?: Array<{ name: string }> } | null)?.columns ?? []).map((c) => c.name);
    const { rows } = await app.pool.query<{ ok: boolean }>("SELECT to_regclass($1) IS NOT NULL AS ok", [tables.transactions]);
    return { id: s.id, entries: tables.entries, transactions: rows[0].ok ? tables.transactions : null, columns };
  };
  const entrySources = await Promise.all(sources.filter((s) => entriesTypes.has(s.analysisSourceTypeId)).map(engineSource));
  const partyLists = await Promise.all(sources.filter((s) => PARTY_LISTS.has(s.analysisSourceTypeId)).map(engineSource));
  const openingBalances = await Promise.all(sources.filter((s) => OPENING_BALANCES.has(s.analysisSourceTypeId)).map(engineSource));
  const openItems = await Promise.all(sources.filter((s) => OPEN_ITEMS.has(s.analysisSourceTypeId)).map(engineSource));
  const closingItems = await Promise.all(sources.filter((s) => CLOSING_ITEMS.has(s.analysisSourceTypeId)).map(engineSource));

  const reportingPeriods = await reportingPeriodsOf(app, analysis);
  const customControlPoints = (configuration.customControlPoints ?? []).filter((c) => c.status === "PUBLISHED");
  return {
    resultId,
    family,
    sources: entrySources,
    partyLists,
    openingBalances,
    openItems,
    closingItems,
    accounts: await accountsOf(app, analysis.engagementId, sources.map((s) => s.id)),
    periods: analysis.analysisPeriods.map((p) => ({ id: p.id, startDate: dateOnly(p.startDate), endDate: dateOnly(p.endDate) })),
    reportingPeriods,
    riskGroups,
    settings: effectiveSettings(family, configuration.controlPointSettings),
    customControlPoints: family === "GL" || family === "GL_NFP" || family === "GL_NFP_FUND" ? customControlPoints : [],
  };
}

async function reportingPeriodsOf(app: Db, analysis: { engagementId: string; reportingPeriodConfigurationId: string | null }) {
  let id = analysis.reportingPeriodConfigurationId;
  if (!id) id = (await app.prisma.engagement.findUnique({ where: { id: analysis.engagementId }, select: { reportingPeriodConfigurationId: true } }))?.reportingPeriodConfigurationId ?? null;
  if (!id) return [];
  const config = await app.prisma.reportingPeriodConfiguration.findUnique({ where: { id } });
  const entries = (config?.monthlyEntries ?? []) as Array<{ startDate: string; endDate: string }>;
  return entries.map((e) => ({ startDate: String(e.startDate).slice(0, 10), endDate: String(e.endDate).slice(0, 10) }));
}

/**
 * The accounts of the run's sources (their account mappings) with their classification: the
 * engagement account group they map to (its hierarchy and tags) and that group's MAC code with the
 * MAC hierarchy and tags of the system grouping. Unmapped accounts have neither.
 */
export async function accountsOf(app: Db, engagementId: string, sourceIds: string[]): Promise<EngineAccount[]> {
  if (sourceIds.length === 0) return [];
  const { rows } = await app.pool.query<{
    account: string;
    description: string | null;
    fund_id: string | null;
    code: string | null;
    hierarchy: string[] | null;
    mac_code: string | null;
    mac_hierarchy: string[] | null;
    tags: string[] | null;
    mac_tags: string[] | null;
  }>(
    `SELECT m.account, m.account_description AS description, m.fund_id, g.code, g.hierarchy, g.mac_code, mac.hierarchy AS mac_hierarchy,
            g.account_tags || m.account_tags AS tags, mac.account_tags AS mac_tags
       FROM account_mapping m
       LEFT JOIN engagement_account_grouping eg ON eg.engagement_id = m.engagement_id
       LEFT JOIN engagement_account_group g ON g.engagement_account_grouping_id = eg.id AND g.code = m.code
       LEFT JOIN account_group mac ON mac.account_grouping_id = $3 AND mac.code = g.mac_code
      WHERE m.engagement_id = $1 AND m.used_by_analysis_sources && $2::text[]`,
    [engagementId, sourceIds, SYSTEM_ACCOUNT_GROUPING_ID],
  );
  return rows.map((r) => ({
    account: r.account,
    description: r.description,
    fundId: r.fund_id,
    groupCode: r.code,
    groupHierarchy: r.hierarchy ?? [],
    macCode: r.mac_code,
    macHierarchy: r.mac_hierarchy ?? (r.mac_code ? [r.mac_code] : []),
    tags: [...new Set([...(r.tags ?? []), ...(r.mac_tags ?? [])])],
  }));
}

/** The specification stored with a result: without the accounts (the result's accounts table has them). */
export function storedSpec(spec: EngineSpec): EngineSpec {
  return { ...spec, accounts: [] };
}
