import { ValidationError, NotFoundError, type Problem } from "../../core/errors.js";
import { ownerGoneAs } from "../../core/db-errors.js";
import { assertContent, createAudit, findEntity, queryEntities, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { AUDIT_COLUMNS, defineColumns, ID, storableFilter, TEXT, type FilterJson } from "../../query-language/index.js";
import { columnSet } from "../data-tables/data-table-rows.js";
import type { CreateRiskSegmentationConfigInput } from "./risk-segmentation.inputs.js";

const ENTITY = "RiskSegmentationConfig";

export const riskSegmentationColumns = defineColumns("risk segmentation configs", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  analysisId: ID,
  analysisResultId: ID,
});

export interface Segment {
  name: string;
  rangeStart: number;
  rangeEnd: number;
}

export function getRiskSegmentationConfig(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "riskSegmentationConfig", ENTITY, id);
}

export function queryRiskSegmentationConfigs(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "riskSegmentationConfig", columns: riskSegmentationColumns }, args);
}

const SUMMABLE = new Set(["MONEY_100", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "DECIMAL", "PERCENTAGE_FIXED_POINT"]);

/**
 * A saved Risk Segmentation view is bound to one analysis and checked against its result (the
 * given one, else the latest): the score column, segments within 0..10000 that do not overlap,
 * summary columns the table can sum, and dashboard filters in the query language of that table.
 */
export async function createRiskSegmentationConfig(ctx: RequestContext, input: CreateRiskSegmentationConfigInput) {
  assertContent(input, ["segments"]);
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id: input.analysisId } });
  if (!analysis) throw new ValidationError(`analysisId ${input.analysisId} refers to no analysis`, { identifier: "analysisId", values: [input.analysisId] });
  const resultId = input.analysisResultId ?? analysis.latestAnalysisResultId;
  if (!resultId) throw new ValidationError(`Analysis ${analysis.id} has no analysis result to segment yet`, { identifier: "analysisId", values: [analysis.id] });
  const result = await ctx.prisma.analysisResult.findUnique({ where: { id: resultId } });
  if (!result || result.analysisId !== analysis.id) throw new ValidationError(`analysisResultId ${resultId} is not a result of analysis ${analysis.id}`, { identifier: "analysisResultId", values: [resultId] });
  const logicalName = input.dataTableLogicalName ?? "gl_journal_lines";
  const table = await ctx.prisma.dataTable.findFirst({ where: { analysisResultId: resultId, logicalName } });
  if (!table) throw new ValidationError(`Result ${resultId} has no data table ${logicalName}`, { identifier: "dataTableLogicalName", values: [logicalName] });
  const set = columnSet({ id: table.id, logicalName: table.logicalName, type: table.type, tableName: table.tableName, columns: table.columns, rowCount: Number(table.rowCount) });
  const problems: Problem[] = [];
  const fail = (identifier: string, reason: string, values?: unknown[], suggestedValues?: string[]) =>
    problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason, ...(values ? { values: values.map(String) } : {}), ...(suggestedValues ? { suggestedValues } : {}) });
  const scoreId = input.riskScoreId ?? "risk";
  const scores = [...set.byField.values()].filter((c) => c.type === "PERCENTAGE_FIXED_POINT").map((c) => c.field);
  if (!scores.includes(scoreId)) fail("riskScoreId", `${scoreId} is not a score column of ${set.subject}`, [scoreId], scores);
  const sorted = input.segments.map((s, i) => ({ ...s, i })).sort((a, b) => a.rangeStart - b.rangeStart);
  input.segments.forEach((s, i) => {
    if (s.name.trim() === "") fail(`segments[${i}].name`, "name must not be blank", [s.name]);
    if (s.rangeStart < 0 || s.rangeStart > 10000) fail(`segments[${i}].rangeStart`, "rangeStart is a PERCENTAGE_FIXED_POINT from 0 to 10000", [s.rangeStart]);
    if (s.rangeEnd < 0 || s.rangeEnd > 10000) fail(`segments[${i}].rangeEnd`, "rangeEnd is a PERCENTAGE_FIXED_POINT from 0 to 10000", [s.rangeEnd]);
    if (s.rangeEnd < s.rangeStart) fail(`segments[${i}].rangeEnd`, "rangeEnd must not be below rangeStart", [s.rangeEnd]);
  });
  for (let k = 1; k < sorted.length; k++) {
    if (sorted[k].rangeStart <= sorted[k - 1].rangeEnd) fail(`segments[${sorted[k].i}].rangeStart`, `overlaps segment ${sorted[k - 1].name}`, [sorted[k].rangeStart]);
  }
  const summable = [...set.byField.values()].filter((c) => SUMMABLE.has(c.type)).map((c) => c.field);
  (input.summaryColumns ?? []).forEach((field, i) => {
    if (!summable.includes(field)) fail(`summaryColumns[${i}]`, `${field} is not a numeric column of ${set.subject}`, [field], summable);
  });
  if (problems.length > 0) throw ValidationError.of(problems);
  let dashboardFilters: FilterJson | undefined;
  if (input.dashboardFilters !== undefined && input.dashboardFilters !== null) {
    try {
      dashboardFilters = storableFilter(input.dashboardFilters, set);
    } catch (error) {
      if (error instanceof ValidationError) throw ValidationError.of(error.problems.map((p) => ({ ...p, identifier: `dashboardFilters.${p.identifier}` })));
      throw error;
    }
  }
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const row = await tx.riskSegmentationConfig.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        analysisId: analysis.id,
        analysisResultId: resultId,
        dataTableLogicalName: logicalName,
        riskScoreId: scoreId,
        segments: input.segments.map((s) => ({ name: s.name, rangeStart: s.rangeStart, rangeEnd: s.rangeEnd })),
        summaryColumns: [...(input.summaryColumns ?? [])],
        dashboardFilters,
      },
    });
    emit({ type: "risk-segmentation-config.created", entityType: "RISK_SEGMENTATION_CONFIG", entityId: row.id, userId: actor.userId, payload: { riskSegmentationConfigId: row.id, analysisId: analysis.id } });
    return row;
  }).catch(ownerGoneAs("analysisId", input.analysisId));
}

export async function deleteRiskSegmentationConfig(ctx: RequestContext, id: string) {
  const current = await getRiskSegmentationConfig(ctx, id);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const deleted = await tx.riskSegmentationConfig.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "risk-segmentation-config.deleted", entityType: "RISK_SEGMENTATION_CONFIG", entityId: id, userId: actor.userId, payload: { riskSegmentationConfigId: id, analysisId: current.analysisId } });
    return { id };
  });
}
