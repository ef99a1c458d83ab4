import { assertContent, createAudit, findEntity, queryEntities, relatedList, relatedOne, saveVersioned, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import {
  deleteRefusal,
  dropTables,
  effectiveDateMetrics,
  effectiveDateMetricsAvailable,
  ingestionTables,
  isWorkflowState,
  loadStagedRecords,
  normalizeSelection,
  sameSelection,
  updateRefusal,
  validateMove,
  WorkflowMoveError,
  type EffectiveDateMetrics,
  type PeriodType,
  type ProposedAmbiguousColumnResolution,
  type ProposedColumnMapping,
  type TransactionIdSelection,
  type VirtualColumnDefinition,
  type WorkflowFeature,
  type WorkflowState,
} from "../../ingestion/index.js";
import { jobStarter, startJob } from "../../jobs/index.js";
import { forgetAnalysisSources } from "../account-mappings/account-mapping.service.js";
import { dateOnly } from "../analyses/analysis.service.js";
import { analysisSourceColumns, transactionIdPreviewColumns } from "./analysis-source.columns.js";
import { checkPositions } from "./analysis-source.input-checks.js";
import { checkVirtualColumnVersions, storedVirtualColumns } from "./analysis-source.virtual-columns.js";
import type { SourceRow } from "./analysis-source.steps.js";
import type { CreateAnalysisSourceInput, ProposedFields, UpdateAnalysisSourceInput } from "./analysis-source.inputs.js";
import { sourceTypeOf } from "./analysis-source.source-types.js";
import { announceEntriesDropped, ingestionJob, type IngestionPayload } from "./analysis-source.workflow.js";

const ENTITY = "AnalysisSource";

export function getAnalysisSource(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisSource", ENTITY, id);
}

const sourcesByAnalysis = relatedList({ model: "analysisSource", columns: analysisSourceColumns, parentField: "analysisId" });

/** `Analysis.analysisSources`: the analysis's sources with the /analysis-sources/query filter and sort. */
export function analysisAnalysisSources(ctx: RequestContext, analysisId: string, args: RelatedListArgs) {
  return sourcesByAnalysis(ctx.app, ctx, analysisId, args);
}

const sourceById = relatedOne("analysisSource");

/** `AsyncResult.analysisSource`: the source an ingestion job works on (batched per request). */
export function analysisSourceOf(ctx: RequestContext, id: string | null | undefined) {
  return sourceById(ctx.app, ctx, id);
}

export function queryAnalysisSources(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisSource", columns: analysisSourceColumns }, args);
}

export function getTransactionIdPreview(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "transactionIdPreview", "TransactionIdPreview", id);
}

export function queryTransactionIdPreviews(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "transactionIdPreview", columns: transactionIdPreviewColumns }, args);
}

/** Whether an ingestion job for the source is queued or running (spec 3.2: update/delete refused). */
export async function jobRunning(tx: Pick<Tx, "asyncResult">, sourceId: string): Promise<boolean> {
  return (await tx.asyncResult.count({ where: { entityId: sourceId, entityType: "ANALYSIS_SOURCE", status: "IN_PROGRESS" } })) > 0;
}

function checkTarget(features: readonly WorkflowFeature[], current: WorkflowState | null, target: string | null | undefined): WorkflowState | null {
  if (target == null) return null;
  if (!isWorkflowState(target)) throw new ValidationError(`targetWorkflowState ${target} is not a workflow state`, { identifier: "targetWorkflowState", values: [target] });
  try {
    validateMove({ features, current, target });
  } catch (error) {
    if (!(error instanceof WorkflowMoveError)) throw error;
    if (error.reason === "TERMINAL" || error.reason === "BACKWARDS") throw new ConflictError(error.message, { problemType: "INVALID_STATE", identifier: "targetWorkflowState", values: [target] });
    throw new ValidationError(error.message, { identifier: "targetWorkflowState", values: [target] });
  }
  return target;
}

function checkSelection(selection: TransactionIdSelection | null | undefined, key: string): void {
  if (!selection) return;
  if (selection.type === "COMBINATION" && selection.columnSelection.length === 0 && (selection.virtualColumnSelection ?? []).length === 0) {
    throw new ValidationError(`${key}: a COMBINATION needs at least one column in columnSelection or virtualColumnSelection`, { identifier: `${key}.columnSelection` });
  }
}

export async function createAnalysisSource(ctx: RequestContext, input: CreateAnalysisSourceInput) {
  assertContent(input);
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id: input.analysisId }, include: { analysisPeriods: true } });
  if (!analysis) throw new ValidationError(`analysisId ${input.analysisId} refers to no analysis`, { identifier: "analysisId", values: [input.analysisId] });
  if (input.engagementId && input.engagementId !== analysis.engagementId) {
    throw new ValidationError(`engagementId ${input.engagementId} is not the engagement of analysis ${analysis.id}`, { identifier: "engagementId", values: [input.engagementId] });
  }
  if (input.analysisPeriodId && !analysis.analysisPeriods.some((p) => p.id === input.analysisPeriodId)) {
    throw new ValidationError(`analysisPeriodId ${input.analysisPeriodId} is not a period of analysis ${analysis.id}`, { identifier: "analysisPeriodId", values: [input.analysisPeriodId] });
  }
  const type = await sourceTypeOf(ctx.app, input.analysisSourceTypeId);
  if (!type) throw new ValidationError(`analysisSourceTypeId ${input.analysisSourceTypeId} refers to no analysis source type`, { identifier: "analysisSourceTypeId", values: [input.analysisSourceTypeId] });
  const analysisType = await ctx.prisma.analysisType.findUnique({ where: { id: analysis.analysisTypeId }, select: { sourceConfigurations: true } });
  const accepted = (analysisType?.sourceConfigurations ?? []).map((c) => c.sourceTypeId);
  if (!accepted.includes(input.analysisSourceTypeId)) {
    throw new ValidationError(`Analysis ${analysis.id}'s type takes no source of type ${input.analysisSourceTypeId}`, { identifier: "analysisSourceTypeId", values: [input.analysisSourceTypeId] });
  }
  const file = await ctx.prisma.fileManagerEntity.findUnique({ where: { id: input.fileManagerFileId } });
  if (!file || file.type !== "FILE" || file.engagementId !== analysis.engagementId) {
    throw new ValidationError(`fileManagerFileId ${input.fileManagerFileId} refers to no file of engagement ${analysis.engagementId}`, { identifier: "fileManagerFileId", values: [input.fileManagerFileId] });
  }
  if (!file.ready) throw new ConflictError(`File ${file.id} is still being produced by a running job`, { problemType: "INVALID_STATE", entityId: file.id, entityType: "FileManagerEntity" });
  if (input.presetHeaderRowIndex != null && input.presetHeaderRowIndex < 0) {
    throw new ValidationError("presetHeaderRowIndex must be 0 or more", { identifier: "presetHeaderRowIndex", values: [input.presetHeaderRowIndex] });
  }
  checkSelection(input.proposedTransactionIdSelection, "proposedTransactionIdSelection");
  const target = checkTarget(type.features, null, input.targetWorkflowState);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const source = await tx.analysisSource.create({
      data: {
        ...createAudit(actor),
        engagementId: analysis.engagementId,
        analysisId: analysis.id,
        analysisPeriodId: input.analysisPeriodId ?? null,
        analysisSourceTypeId: input.analysisSourceTypeId,
        fileManagerFileId: file.id,
        workflowState: "STARTED",
        targetWorkflowState: target,
        warningsIgnored: input.warningsIgnored ?? false,
        applyDegrouper: input.applyDegrouper ?? false,
        presetHeaderRowIndex: input.presetHeaderRowIndex ?? null,
        additionalDataColumnField: input.additionalDataColumnField ?? null,
        ...proposedData(input),
      },
    });
    emit({ type: "analysis-source.created", entityType: "ANALYSIS_SOURCE", entityId: source.id, userId: actor.userId, payload: { analysisSourceId: source.id, analysisId: source.analysisId, engagementId: source.engagementId } });
    const payload: IngestionPayload = { analysisSourceId: source.id, target };
    return startJob(tx, { job: ingestionJob, payload, entityType: "ANALYSIS_SOURCE", entityId: source.id, startedBy: jobStarter(ctx) });
  });
}

function proposedData(input: ProposedFields) {
  const data: Pick<Prisma.AnalysisSourceUpdateInput, keyof ProposedFields> = {};
  if (input.proposedColumnMappings != null) data.proposedColumnMappings = input.proposedColumnMappings;
  if (input.proposedVirtualColumns != null) data.proposedVirtualColumns = input.proposedVirtualColumns;
  if (input.proposedAmbiguousColumnResolutions != null) data.proposedAmbiguousColumnResolutions = input.proposedAmbiguousColumnResolutions;
  if (input.proposedTransactionIdSelection != null) data.proposedTransactionIdSelection = input.proposedTransactionIdSelection;
  return data;
}

/**
 * Applied mapping fields sent in an update are taken as the new proposal (the engine applies
 * proposals): column positions past the file's columns refer to virtual columns, and columns
 * left NOT_MAPPED are left out.
 */
function appliedAsProposed(input: UpdateAnalysisSourceInput, physicalCount: number): ProposedFields {
  const proposed: ProposedFields = {};
  if (input.virtualColumns) proposed.proposedVirtualColumns = input.virtualColumns.map(({ version: _v, position: _p, ...definition }) => definition);
  if (input.columnMappings) {
    // An applied mapping without platformField or additionalColumnName is a NOT_MAPPED column of the
    // read model sent back: it proposes nothing.
    proposed.proposedColumnMappings = input.columnMappings.filter((m) => m.platformField || m.additionalColumnName).map((m) =>
      m.position >= physicalCount
        ? { virtualColumnIndex: m.position - physicalCount, platformField: m.platformField ?? null, additionalColumnName: m.additionalColumnName ?? null }
        : { columnPosition: m.position, platformField: m.platformField ?? null, additionalColumnName: m.additionalColumnName ?? null },
    );
  }
  if (input.ambiguousColumnResolutions) proposed.proposedAmbiguousColumnResolutions = input.ambiguousColumnResolutions.map((r) => ({ position: r.position, selectedFormat: r.selectedFormat }));
  return proposed;
}

export async function updateAnalysisSource(ctx: RequestContext, id: string, input: UpdateAnalysisSourceInput) {
  assertContent(input);
  checkSelection(input.proposedTransactionIdSelection, "proposedTransactionIdSelection");
  checkSelection(input.transactionIdSelection, "transactionIdSelection");
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    // The row lock serialises updates, so two requests cannot both start a job.
    const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM analysis_source WHERE id = ${id} FOR UPDATE`;
    if (locked.length === 0) throw new NotFoundError(ENTITY, id);
    const source = await tx.analysisSource.findUniqueOrThrow({ where: { id } });
    const state = source.workflowState as WorkflowState;
    const refusal = updateRefusal(state, await jobRunning(tx, id));
    if (refusal) throw new ConflictError(`Analysis source ${id} cannot be updated: ${refusal}`, { problemType: "INVALID_STATE", entityId: id, entityType: ENTITY });
    const type = await sourceTypeOf(ctx.app, source.analysisSourceTypeId);
    const target = checkTarget(type!.features, state, input.targetWorkflowState);
    const selection = input.transactionIdSelection ?? null;
    if (selection && state !== "INTEGRITY_CHECKED") {
      throw new ConflictError(`transactionIdSelection can be changed only at INTEGRITY_CHECKED; this analysis source is ${state}`, { problemType: "INVALID_STATE", identifier: "transactionIdSelection", entityId: id, entityType: ENTITY });
    }
    // What can be judged now is refused now (400, nothing saved) rather than failing the job for good.
    checkPositions(source, input, type!.definitions);
    if (input.virtualColumns) checkVirtualColumnVersions(storedVirtualColumns(source.virtualColumns), input.virtualColumns);
    const physicalCount = source.fileInfo?.columnData?.length ?? 0;
    const proposed = { ...appliedAsProposed(input, physicalCount), ...stripNulls(input) };
    const mappingChanged = proposed.proposedColumnMappings != null || proposed.proposedVirtualColumns != null || proposed.proposedAmbiguousColumnResolutions != null;
    const selectionChanged = selection !== null && state === "INTEGRITY_CHECKED" && !(source.transactionIdSelection && sameSelection(source.transactionIdSelection, selection));
    const updated = await saveVersioned(
      tx.analysisSource,
      ENTITY,
      id,
      input.version,
      {
        ...proposedData(proposed),
        // Stored in full (type, columnSelection, virtualColumnSelection, applySmartSplitter; wire
        // reference 8), as when the server chooses the selection itself.
        ...(selectionChanged ? { transactionIdSelection: normalizeSelection(selection) } : {}),
        ...(input.targetWorkflowState !== undefined ? { targetWorkflowState: target } : {}),
        ...(input.warningsIgnored != null ? { warningsIgnored: input.warningsIgnored } : {}),
        ...(input.applyDegrouper != null ? { applyDegrouper: input.applyDegrouper } : {}),
      },
      actor,
    );
    emit({ type: "analysis-source.updated", entityType: "ANALYSIS_SOURCE", entityId: id, userId: actor.userId, payload: { analysisSourceId: id, analysisId: updated.analysisId, engagementId: updated.engagementId } });
    const payload: IngestionPayload = { analysisSourceId: id, target, reapplyMappings: mappingChanged && state === "DATA_VALIDATION_CONFIRMED", selectionChanged };
    return startJob(tx, { job: ingestionJob, payload, entityType: "ANALYSIS_SOURCE", entityId: id, startedBy: jobStarter(ctx) });
  });
}

function stripNulls(input: ProposedFields): ProposedFields {
  const out: ProposedFields = {};
  if (input.proposedColumnMappings != null) out.proposedColumnMappings = input.proposedColumnMappings;
  if (input.proposedVirtualColumns != null) out.proposedVirtualColumns = input.proposedVirtualColumns;
  if (input.proposedAmbiguousColumnResolutions != null) out.proposedAmbiguousColumnResolutions = input.proposedAmbiguousColumnResolutions;
  if (input.proposedTransactionIdSelection != null) out.proposedTransactionIdSelection = input.proposedTransactionIdSelection;
  return out;
}

export async function deleteAnalysisSource(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  await inTransaction(ctx.app, async (tx, emit) => {
    const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM analysis_source WHERE id = ${id} FOR UPDATE`;
    if (locked.length === 0) throw new NotFoundError(ENTITY, id);
    const refusal = deleteRefusal(await jobRunning(tx, id));
    if (refusal) throw new ConflictError(`Analysis source ${id} cannot be deleted: ${refusal}`, { problemType: "INVALID_STATE", entityId: id, entityType: ENTITY });
    // Data tables go first: deleting the source would cascade to their rows without their events.
    await announceEntriesDropped(tx, emit, actor, await tx.analysisSource.findUniqueOrThrow({ where: { id } }));
    const source = await tx.analysisSource.delete({ where: { id } });
    await forgetAnalysisSources(tx, actor, source.engagementId, [id]);
    emit({ type: "analysis-source.deleted", entityType: "ANALYSIS_SOURCE", entityId: id, userId: actor.userId, payload: { analysisSourceId: id, analysisId: source.analysisId, engagementId: source.engagementId } });
  });
  await dropTables(ctx.app.pool, Object.values(ingestionTables(id)));
  return { id };
}

export const PERIOD_TYPES = ["DAY", "WEEK", "MONTH"] as const;

/**
 * GET /analysis-sources/{id}/effective-date-metrics: usable from EFFECTIVE_DATE_METRICS_ANALYZED on.
 * Before that (or FAILED) the source's state conflicts with the request (409, wire reference 3); a
 * source whose type has no effective date step never has them, whatever its state (400).
 */
export async function analysisSourceEffectiveDateMetrics(ctx: RequestContext, id: string, period: PeriodType) {
  const source = await ctx.prisma.analysisSource.findUnique({ where: { id } });
  if (!source) throw new NotFoundError(ENTITY, id);
  const type = await ctx.prisma.analysisSourceType.findUnique({ where: { id: source.analysisSourceTypeId }, select: { name: true, features: true } });
  if (type && !(type.features as string[]).includes("EFFECTIVE_DATE_METRICS")) {
    throw new ValidationError(`Analysis source ${id} is of type ${type.name}, which has no effective dates: its workflow has no effective date metrics step`, {
      identifier: "analysisSourceId",
      values: [id],
      entityId: id,
      entityType: ENTITY,
    });
  }
  const state = source.workflowState as WorkflowState;
  if (!isWorkflowState(state) || !effectiveDateMetricsAvailable(state) || !source.effectiveDates) {
    throw new ConflictError(`Effective date metrics are available once the analysis source reached EFFECTIVE_DATE_METRICS_ANALYZED; this one is ${state}`, {
      problemType: "INVALID_STATE",
      identifier: "analysisSourceId",
      values: [id],
      entityId: id,
      entityType: ENTITY,
    });
  }
  const analysis = await ctx.prisma.analysis.findUniqueOrThrow({ where: { id: source.analysisId }, include: { analysisPeriods: { orderBy: { startDate: "asc" } } } });
  const periods = analysis.analysisPeriods.filter((p) => !source.analysisPeriodId || p.id === source.analysisPeriodId);
  const startDate = periods.length > 0 ? dateOnly(periods[0].startDate) : "0001-01-01";
  const endDate = periods.length > 0 ? dateOnly(periods[periods.length - 1].endDate) : "9999-12-31";
  const metrics = effectiveDateMetrics(source.effectiveDates, period, { startDate, endDate });
  await fillPreviews(ctx, source, metrics);
  return wireEffectiveDateMetrics(id, metrics);
}

export interface WireEffectiveDateMetrics {
  analysisSourceId: string;
  periodType: PeriodType;
  entriesInPeriod: number;
  entriesOutOfPeriod: number;
  debitsInPeriod: number;
  creditsInPeriod: number;
  inPeriodCountHistogram: Record<string, number>;
  outOfPeriodCountHistogram: Record<string, number>;
  entriesWithoutValidDate: number;
  metricDetails: Record<string, { state: string; entryCount: number; dataPreviews: unknown[] }>;
}

/**
 * Wire reference 8: the metrics are plain numbers (counts, MONEY_100 integers, {label: count}
 * histograms), as existing clients read them; the engine's states and example rows are kept
 * beside them in `metricDetails`.
 */
function wireEffectiveDateMetrics(analysisSourceId: string, m: EffectiveDateMetrics): WireEffectiveDateMetrics {
  const detail = (metric: { state: string; count: number; dataPreviews: unknown[] }) => ({ state: metric.state, entryCount: metric.count, dataPreviews: metric.dataPreviews });
  return {
    analysisSourceId,
    periodType: m.periodType,
    entriesInPeriod: m.entriesInPeriod.count,
    entriesOutOfPeriod: m.entriesOutOfPeriod.count,
    debitsInPeriod: m.debitsInPeriod.amount,
    creditsInPeriod: m.creditsInPeriod.amount,
    inPeriodCountHistogram: m.inPeriodCountHistogram.histogram,
    outOfPeriodCountHistogram: m.outOfPeriodCountHistogram.histogram,
    entriesWithoutValidDate: m.entriesWithoutValidDate.count,
    metricDetails: {
      entriesInPeriod: detail(m.entriesInPeriod),
      entriesOutOfPeriod: detail(m.entriesOutOfPeriod),
      debitsInPeriod: detail(m.debitsInPeriod),
      creditsInPeriod: detail(m.creditsInPeriod),
      entriesWithoutValidDate: detail(m.entriesWithoutValidDate),
    },
  };
}

/**
 * Data previews name staged rows; they show the row when the staging table is still there, as
 * the file info's previews do: the file's fields in column order (the source's
 * `fileInfo.columnData` names them), never the staging table's internal columns.
 */
async function fillPreviews(ctx: RequestContext, source: Pick<SourceRow, "id" | "stage" | "fileInfo">, metrics: object): Promise<void> {
  const previews = Object.values(metrics).flatMap((m) => ((m as { dataPreviews?: Array<{ rowIndex?: number; row?: unknown }> })?.dataPreviews ?? []));
  const rowNos = [...new Set(previews.map((p) => p.rowIndex).filter((n): n is number => typeof n === "number"))];
  const staged = source.stage?.columns;
  const described = source.fileInfo?.columnData;
  const width = Array.isArray(staged) ? staged.length : Array.isArray(described) ? described.length : 0;
  if (rowNos.length === 0 || width === 0) return;
  const rows = await loadStagedRecords(ctx.app.pool, ingestionTables(source.id).staging, width, rowNos).catch(() => new Map<number, string[]>());
  for (const preview of previews) if (typeof preview.rowIndex === "number" && rows.has(preview.rowIndex)) preview.row = rows.get(preview.rowIndex);
}
