/**
 * The analysis engine: scores every entry, transaction and monetary flow of an analysis in
 * PostgreSQL, set-based, and leaves the result's tables for the data tables module to publish.
 * No entities, routes or types: the analysis results module gathers an `EngineSpec`, runs the steps
 * as one job (progress and resumption per step), then publishes `publication(...)`. See
 * docs/control-points.md for every control point and docs/architecture.md ("Analysis engine").
 */
import type pg from "pg";
import { isGeneralLedger } from "./control-points/index.js";
import { GL_STEPS, glPublication, glTableShapes } from "./gl/index.js";
import type { PublishedTable, ResultSummary, TableQuery, TableShape } from "./publish.js";
import type { RunPlan } from "./run-plan.js";
import type { EngineStep } from "./steps.js";
import { SUBLEDGER_STEPS, subledgerPublication } from "./subledger/index.js";
import { RESULTS_SCHEMA, resultTables } from "./tables.js";
import { table } from "./sql.js";

export * from "./control-points/index.js";
export { planRun, type PlannedPoint, type RunPlan } from "./run-plan.js";
export type { EngineSpec, EngineSource, EngineAccount, EngineRiskGroup, EnginePeriod, RiskRangeBounds } from "./spec.js";
export type { EngineStep, StepContext } from "./steps.js";
export { runSteps, survivingSteps } from "./steps.js";
export type { ResultColumn } from "./columns.js";
export type { PublishedTable, ResultSummary, ControlPointSummary, TableQuery, TableShape } from "./publish.js";
export { RISK_LEVELS } from "./publish.js";
export { RESULTS_SCHEMA, resultTables } from "./tables.js";
export { explainEntry, explainTransaction, type Explanation } from "./explain.js";
export { classifyAccount, riskGroupOf, EXPORT_TAGS } from "./accounts.js";

export function engineSteps(plan: RunPlan): EngineStep[] {
  return isGeneralLedger(plan.spec.family) ? GL_STEPS : SUBLEDGER_STEPS;
}

/** `query` runs the summary's passes (default: a pool connection each; a run passes its index builder's). */
export function publication(pool: pg.Pool, plan: RunPlan, query?: TableQuery): Promise<{ tables: PublishedTable[]; summary: ResultSummary }> {
  return isGeneralLedger(plan.spec.family) ? glPublication(pool, plan, query) : subledgerPublication(pool, plan);
}

/** Published tables known before the publication, with the step after which each is final (none for the subledgers: indexed at publication). */
export function resultTableShapes(pool: pg.Pool, plan: RunPlan): Promise<TableShape[]> {
  return isGeneralLedger(plan.spec.family) ? glTableShapes(pool, plan) : Promise.resolve([]);
}

/** Tables of a result that stay with it: published ones, the accounts, statistics and facts (explain reads them). */
function kept(plan: RunPlan, published: readonly PublishedTable[]): Set<string> {
  const t = plan.tables;
  return new Set([...published.map((p) => p.table), t.accounts, t.work("facts"), t.work("pairs"), t.work("signatures")].map((n) => n.split(".")[1]));
}

/**
 * The statement dropping the run's working tables (the base entries, transaction aggregate,
 * findings) once published, or null when there are none. The caller runs it in the transaction
 * that completes the run, so a crash leaves either a running result with all its tables or a
 * completed one without its working tables, never a completed one with leftovers.
 */
export async function dropWorkTablesStatement(pool: pg.Pool, plan: RunPlan, published: readonly PublishedTable[]): Promise<string | null> {
  const keep = kept(plan, published);
  const names = (await tablesOf(pool, plan.spec.resultId)).filter((name) => !keep.has(name) && !name.startsWith(`${plan.tables.prefix}s_`));
  return names.length === 0 ? null : `DROP TABLE IF EXISTS ${names.map((name) => table(`${RESULTS_SCHEMA}.${name}`)).join(", ")}`;
}

/** Every table of a result (a failed run's half-made ones, or a deleted result's). */
export async function dropResultTables(pool: pg.Pool, resultId: string): Promise<void> {
  for (const name of await tablesOf(pool, resultId)) await pool.query(`DROP TABLE IF EXISTS ${table(`${RESULTS_SCHEMA}.${name}`)}`);
}

async function tablesOf(pool: pg.Pool, resultId: string): Promise<string[]> {
  const prefix = resultTables(resultId).prefix;
  const { rows } = await pool.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND starts_with(tablename, $2)`, [RESULTS_SCHEMA, prefix]);
  return rows.map((r) => r.name);
}

/** Result ids that still have tables (the orphan cleanup compares them with the results that exist). */
export async function resultIdsWithTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(`SELECT DISTINCT substring(tablename FROM '^r_([a-f0-9]{24})_') AS id FROM pg_tables WHERE schemaname = $1`, [RESULTS_SCHEMA]);
  return rows.map((r) => r.id).filter(Boolean);
}
export { settingsProblems, customControlPointProblems, normalizeCustom } from "./control-points/validation.js";
