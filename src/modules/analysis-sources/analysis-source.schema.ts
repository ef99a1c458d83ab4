import { defineCrudFields } from "../common/crud-fields.js";
import { Repeater } from "graphql-yoga";
import { transactionIdPreviewColumns } from "./analysis-source.columns.js";
import { whereArg } from "../common/where.js";
import { analysisSourceColumns } from "./analysis-source.columns.js";
import { builder } from "../../graphql/builder.js";
import {
  type AmbiguousColumnResolution as AmbiguousColumnResolutionModel,
  type ColumnMapping as ColumnMappingModel,
  type ProposedAmbiguousColumnResolution as ProposedAmbiguousColumnResolutionModel,
  type ProposedColumnMapping as ProposedColumnMappingModel,
  type TransactionIdSelection as TransactionIdSelectionModel,
  type VirtualColumnDefinition,
} from "../../ingestion/index.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { Entity, UserInfo } from "../common/entity.js";
import { pageArgs, pageOf } from "../common/page.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { DATA_PREVIEW, FileInfoNode, FILE_METRICS, GroupedFormat } from "../file-infos/file-info.schema.js";
import { BOOLEAN, INTEGER, listOf, mapOf, namedShape, OBJECT_ID, objectOf, ref, shaped, STRING } from "../common/json-shape.js";
import type { SourceMessage as SourceMessageModel } from "./analysis-source.messages.js";
import { wireIndicators } from "./transaction-id-preview.wire.js";
import { currentSourceProgress, isTerminalState, sourceProgressEvents, supersededBy, type SourceProgress } from "./analysis-source.progress.js";
import type { AuditedVirtualColumn } from "./analysis-source.virtual-columns.js";
import * as service from "./analysis-source.service.js";
import { CreateAnalysisSourceInput, TransactionIdType, UpdateAnalysisSourceInput, VirtualColumnType, WorkflowStateEnum } from "./analysis-source.inputs.js";
import "./analysis-source.hooks.js";
import "./analysis-source.cleanup.js";
import { childrenOf, entityById } from "../common/relations.js";
import { FileManagerFile } from "../file-manager/file-manager.schema.js";
import { fileInfoOf, fileManagerEntityOf } from "../file-manager/file-manager.service.js";
import { relatedListArgs } from "../common/page.js";
import { dataTableColumns } from "../data-tables/data-table.columns.js";

registerEventPermission("ANALYSIS_SOURCE", "api.analysis-sources.read");

const PreviewRating = builder.enumType("PreviewRating", { values: ["BLOCK", "FAIL", "POOR", "NEUTRAL", "GOOD"] as const });
const FileVersion = builder.enumType("FileVersion", {
  description: "Which reading of a source's file a file info describes",
  values: { ORIGINAL: { description: "The file as imported" }, DEGROUPED: { description: "The file's rows once a grouped layout was flattened" } } as const,
});

const SourceMessage = builder.objectRef<SourceMessageModel>("AnalysisSourceMessage").implement({
  description: "An error or warning of an analysis source: a stable code and the English text",
  fields: (t) => ({ code: t.exposeString("code"), defaultMessage: t.exposeString("defaultMessage") }),
});

const FILE_INFO_VERSIONS = namedShape(
  "FileInfoVersions",
  objectOf({ ORIGINAL: OBJECT_ID, DEGROUPED: OBJECT_ID }, [], "File version -> file info id (GET /file-info/{fileInfoId})"),
);
const SOURCE_COLUMN_DATA = namedShape(
  "AnalysisSourceFileInfoColumn",
  objectOf({ position: INTEGER, columnName: STRING, synthetic: BOOLEAN, rowSample: listOf(STRING), columnMetadata: FILE_METRICS }, ["position", "synthetic", "columnMetadata"]),
);
// The deprecated `fileInfo`: the source's reading as the engine stored it (TABULAR_FILE_INFO plus
// how it was read: encoding, bom, quote, rowCount, degrouped).
const SOURCE_FILE_INFO = namedShape(
  "AnalysisSourceFileInfo",
  objectOf(
    {
      type: { type: "string", enum: ["TABULAR_FILE_INFO"] },
      name: STRING,
      format: ref("GroupedFormat"),
      formatDetected: BOOLEAN,
      degrouped: BOOLEAN,
      encoding: STRING,
      bom: BOOLEAN,
      delimiter: STRING,
      quote: STRING,
      firstLine: STRING,
      headerRowIndex: INTEGER,
      lastNonBlankRowIndex: INTEGER,
      rowContentSnippets: listOf(listOf(STRING)),
      rowCount: INTEGER,
      columnData: listOf(SOURCE_COLUMN_DATA),
      tableMetadata: FILE_METRICS,
      metadata: FILE_METRICS,
      workbook: objectOf({ kind: { type: "string", enum: ["XLSX", "XLS"] }, sheetNames: listOf(STRING), validSheets: listOf(STRING), sheet: STRING }),
    },
    ["type", "formatDetected", "degrouped", "encoding", "bom", "delimiter", "firstLine", "lastNonBlankRowIndex", "rowContentSnippets", "rowCount", "columnData", "tableMetadata", "metadata"],
  ),
);
/** A transaction as previewed: its id, entries, balance (MONEY_100) and up to 20 of its entries. */
const PREVIEW_ROW = namedShape(
  "TransactionIdPreviewRow",
  objectOf({
    transactionId: STRING,
    entryCount: INTEGER,
    balance: INTEGER,
    detailRows: listOf(mapOf({ type: ["string", "number"] }, "An entry: row_no, the mapped fields as read, amount_signed")),
  }, ["entryCount", "balance", "detailRows"]),
);
const INDICATOR = namedShape(
  "TransactionIdIndicator",
  objectOf(
    { rating: ref("PreviewRating"), value: mapOf({ type: ["integer", "number", "string"] }, "The indicator's facts: count, and share, transactions, unbalancedAmount or reason where they apply"), data: listOf(PREVIEW_ROW) },
    ["rating", "value", "data"],
  ),
);
const PeriodTypeEnum = builder.enumType("EffectiveDatePeriodType", { values: service.PERIOD_TYPES });

const json = (description: string) => ({ type: "JSON" as const, nullable: true, description });

/** The spec calls the deprecated `fileInfo`'s whole-file part `metadata`; clients of the read model know it as `tableMetadata`. */
function deprecatedFileInfo(fileInfo: unknown) {
  if (!fileInfo || typeof fileInfo !== "object") return null;
  const info = fileInfo as { tableMetadata?: unknown };
  return { ...info, metadata: info.tableMetadata ?? {} };
}

const MappingTypeEnum = builder.enumType("ColumnMappingType", { values: ["AUTO", "NOT_MAPPED", "MANUAL"] as const });

// Read models of the mapping and selection fields: the engine's shapes (src/ingestion/mapping/model.ts).
const ColumnMapping = builder.objectRef<ColumnMappingModel>("ColumnMapping").implement({
  description: "A file or virtual column and the platform field (or additional-data column) it feeds",
  fields: (t) => ({
    position: t.exposeInt("position"),
    field: t.exposeString("field", { nullable: true, description: "The column's name in the file (or the virtual column's)" }),
    platformField: t.exposeString("platformField", { nullable: true }),
    additionalColumnName: t.exposeString("additionalColumnName", { nullable: true }),
    mappingType: t.field({ type: MappingTypeEnum, resolve: (m) => m.mappingType }),
  }),
});

const ProposedColumnMapping = builder.objectRef<ProposedColumnMappingModel>("ProposedColumnMapping").implement({
  fields: (t) => ({
    columnPosition: t.exposeInt("columnPosition", { nullable: true }),
    platformField: t.exposeString("platformField", { nullable: true }),
    additionalColumnName: t.exposeString("additionalColumnName", { nullable: true }),
    virtualColumnIndex: t.exposeInt("virtualColumnIndex", { nullable: true }),
  }),
});

const virtualColumnOutputFields = (t: any) => ({
  name: t.exposeString("name"),
  type: t.field({ type: VirtualColumnType, resolve: (v: VirtualColumnDefinition) => v.type }),
  columnIndex: t.exposeInt("columnIndex", { nullable: true }),
  columnIndices: t.exposeIntList("columnIndices", { nullable: true }),
  delimiter: t.exposeString("delimiter", { nullable: true }),
  splitIndex: t.exposeInt("splitIndex", { nullable: true }),
  startPosition: t.exposeInt("startPosition", { nullable: true }),
  endPosition: t.exposeInt("endPosition", { nullable: true }),
});

const ProposedVirtualColumn = builder.objectRef<VirtualColumnDefinition>("ProposedVirtualColumn").implement({ fields: (t) => virtualColumnOutputFields(t) });
// Not an Entity (REST leaves entity-to-entity links out of read models), but it carries the same
// audit fields (wire reference 8): ids stay stable across re-applications, versions count changes.
const VirtualColumn = builder.objectRef<AuditedVirtualColumn>("VirtualColumn").implement({
  description: "An applied virtual column, with its audit (id, version, dates and users)",
  fields: (t) => ({
    id: t.exposeID("id"),
    version: t.exposeInt("version", { description: "Increments when the column's definition or position changes; update items carry it" }),
    creationDate: t.field({ type: "DateTime", resolve: (v) => v.creationDate }),
    lastModifiedDate: t.field({ type: "DateTime", resolve: (v) => v.lastModifiedDate }),
    createdUserInfo: t.field({ type: UserInfo, resolve: (v) => ({ userId: v.createdUserId, userName: v.createdUserName }) }),
    lastModifiedUserInfo: t.field({ type: UserInfo, resolve: (v) => ({ userId: v.lastModifiedUserId, userName: v.lastModifiedUserName }) }),
    ...virtualColumnOutputFields(t),
    position: t.exposeInt("position", { description: "Column position after the file's columns" }),
  }),
});

const AmbiguousColumnResolution = builder.objectRef<AmbiguousColumnResolutionModel>("AmbiguousColumnResolution").implement({
  fields: (t) => ({ position: t.exposeInt("position"), ambiguousFormats: t.exposeStringList("ambiguousFormats"), selectedFormat: t.exposeString("selectedFormat", { nullable: true }) }),
});

const ProposedAmbiguousColumnResolution = builder.objectRef<ProposedAmbiguousColumnResolutionModel>("ProposedAmbiguousColumnResolution").implement({
  fields: (t) => ({ position: t.exposeInt("position"), selectedFormat: t.exposeString("selectedFormat") }),
});

const TransactionIdSelection = builder.objectRef<TransactionIdSelectionModel>("TransactionIdSelection").implement({
  fields: (t) => ({
    type: t.field({ type: TransactionIdType, resolve: (sel) => sel.type }),
    columnSelection: t.exposeIntList("columnSelection"),
    virtualColumnSelection: t.exposeIntList("virtualColumnSelection", { nullable: true }),
    applySmartSplitter: t.exposeBoolean("applySmartSplitter", { nullable: true }),
  }),
});

export const AnalysisSource = builder.prismaObject("AnalysisSource", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    analysisPeriodId: t.exposeID("analysisPeriodId", { nullable: true }),
    analysisSourceTypeId: t.exposeID("analysisSourceTypeId"),
    workflowState: t.field({ type: WorkflowStateEnum, resolve: (s) => s.workflowState }),
    targetWorkflowState: t.field({ type: WorkflowStateEnum, nullable: true, resolve: (s) => s.targetWorkflowState }),
    warnings: t.field({ type: [SourceMessage], description: "Values the parse could not read (UNPARSEABLE_VALUES)", resolve: (s) => s.warnings }),
    warningsIgnored: t.exposeBoolean("warningsIgnored"),
    errors: t.field({ type: [SourceMessage], description: "Why the workflow FAILED", resolve: (s) => s.errors }),
    detectedFormat: t.field({ type: GroupedFormat, nullable: true, resolve: (s) => s.detectedFormat }),
    applyDegrouper: t.exposeBoolean("applyDegrouper"),
    degrouperApplied: t.exposeBoolean("degrouperApplied"),
    presetHeaderRowIndex: t.exposeInt("presetHeaderRowIndex", { nullable: true }),
    additionalDataColumnField: t.exposeString("additionalDataColumnField", { nullable: true }),
    fileManagerFileId: t.exposeID("fileManagerFileId", { deprecationReason: "use fileManagerFiles" }),
    fileManagerFile: t.field({
      type: FileManagerFile,
      nullable: true,
      description: "The file manager file the source reads (null once it is deleted)",
      authScopes: { permission: "api.file-manager.read" },
      resolve: async (s, _args, ctx) => {
        const file = await fileManagerEntityOf(ctx, s.fileManagerFileId);
        return file?.type === "FILE" ? file : null;
      },
    }),
    fileManagerFiles: t.field({ ...json("File manager files by role"), ...shaped(objectOf({ ORIGINAL: OBJECT_ID })), resolve: (s) => ({ ORIGINAL: s.fileManagerFileId }) }),
    fileInfo: t.field({
      ...json("TABULAR_FILE_INFO of the staged rows (deprecated: fileInfoVersions); the whole-file metrics under both `metadata` (the spec's name) and `tableMetadata`"),
      ...shaped(SOURCE_FILE_INFO),
      deprecationReason: "use fileInfoVersions",
      resolve: (s) => deprecatedFileInfo(s.fileInfo),
    }),
    fileInfoVersions: t.field({
      ...json("File infos by file version (ORIGINAL; DEGROUPED when a grouped layout was flattened): their ids, read at GET /file-info/{fileInfoId}"),
      ...shaped(FILE_INFO_VERSIONS),
      resolve: (s) => s.fileInfoVersions,
    }),
    fileInfoVersion: t.field({
      type: FileInfoNode,
      nullable: true,
      description: "The file info of one file version (fileInfoVersions names its id)",
      authScopes: { permission: "api.file-infos.read" },
      args: { version: t.arg({ type: FileVersion, required: true }) },
      resolve: (s, { version }, ctx) => {
        const id = s.fileInfoVersions[version];
        return id ? fileInfoOf(ctx, id) : null;
      },
    }),
    columnMappings: t.field({ type: [ColumnMapping], nullable: true, description: "Applied column mappings", resolve: (s) => s.columnMappings }),
    virtualColumns: t.field({ type: [VirtualColumn], nullable: true, description: "Applied virtual columns", resolve: (s) => s.virtualColumns }),
    ambiguousColumnResolutions: t.field({ type: [AmbiguousColumnResolution], nullable: true, description: "Applied format resolutions", resolve: (s) => s.ambiguousColumnResolutions }),
    transactionIdSelection: t.field({ type: TransactionIdSelection, nullable: true, description: "Selected transaction id", resolve: (s) => s.transactionIdSelection }),
    proposedColumnMappings: t.field({ type: [ProposedColumnMapping], nullable: true, resolve: (s) => s.proposedColumnMappings }),
    proposedVirtualColumns: t.field({ type: [ProposedVirtualColumn], nullable: true, resolve: (s) => s.proposedVirtualColumns }),
    proposedAmbiguousColumnResolutions: t.field({ type: [ProposedAmbiguousColumnResolution], nullable: true, resolve: (s) => s.proposedAmbiguousColumnResolutions }),
    proposedTransactionIdSelection: t.field({ type: TransactionIdSelection, nullable: true, resolve: (s) => s.proposedTransactionIdSelection }),
    analysis: t.relation("analysis", { authScopes: { permission: "api.analyses.read" } }),
    engagement: t.relation("engagement", { authScopes: { permission: "api.engagements.read" } }),
    analysisSourceType: t.prismaField({ type: "AnalysisSourceType", nullable: true, authScopes: { permission: "api.analysis-source-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisSourceType")(ctx, p.analysisSourceTypeId) }),
    dataTables: t.prismaField({
      type: ["DataTable"],
      authScopes: { permission: "api.data-tables.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "DataTable", dataTableColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("dataTable", dataTableColumns, "analysisSourceId")(ctx, p.id, args),
    }),
  }),
});

export const TransactionIdPreview = builder.prismaObject("TransactionIdPreview", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    analysisSourceId: t.exposeID("analysisSourceId"),
    type: t.field({ type: TransactionIdType, resolve: (p) => p.type }),
    columnSelection: t.exposeIntList("columnSelection"),
    virtualColumnSelection: t.exposeIntList("virtualColumnSelection"),
    smartSplitter: t.exposeBoolean("smartSplitter"),
    overallRating: t.field({ type: PreviewRating, resolve: (p) => p.overallRating }),
    indicators: t.field({
      type: "JSON",
      ...shaped(mapOf(INDICATOR, "Indicator name -> {rating, value (its facts), data (preview rows of transactions it is about)}")),
      resolve: (p) => wireIndicators(p.indicators, p.entryPreviews),
    }),
    entryPreviews: t.field({ type: "JSON", ...shaped(listOf(PREVIEW_ROW)), resolve: (p) => p.entryPreviews }),
    analysisSource: t.prismaField({ type: "AnalysisSource", nullable: true, authScopes: { permission: "api.analysis-sources.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisSource")(ctx, p.analysisSourceId) }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
  }),
});

const METRIC_DETAIL = namedShape(
  "EffectiveDateMetricDetail",
  objectOf({ state: ref("MetricState"), entryCount: INTEGER, dataPreviews: listOf(DATA_PREVIEW) }, ["state", "dataPreviews"]),
);

const EffectiveDateMetrics = builder.objectRef<service.WireEffectiveDateMetrics>("EffectiveDateMetrics").implement({
  description: "Entries by effective date against the analysis period: plain counts, MONEY_100 totals and {period label: count} histograms",
  fields: (t) => ({
    analysisSourceId: t.exposeID("analysisSourceId"),
    periodType: t.field({ type: PeriodTypeEnum, resolve: (m) => m.periodType }),
    entriesInPeriod: t.exposeInt("entriesInPeriod", { description: "Entries dated within the analysis period" }),
    entriesOutOfPeriod: t.exposeInt("entriesOutOfPeriod", { description: "Entries dated outside it" }),
    debitsInPeriod: t.field({ type: "Long", description: "Debits of the entries in the period (MONEY_100)", resolve: (m) => m.debitsInPeriod }),
    creditsInPeriod: t.field({ type: "Long", description: "Credits of the entries in the period (MONEY_100)", resolve: (m) => m.creditsInPeriod }),
    inPeriodCountHistogram: t.field({ type: "JSON", ...shaped(mapOf(INTEGER, "Period label -> entries")), resolve: (m) => m.inPeriodCountHistogram }),
    outOfPeriodCountHistogram: t.field({ type: "JSON", ...shaped(mapOf(INTEGER, "Period label -> entries")), resolve: (m) => m.outOfPeriodCountHistogram }),
    entriesWithoutValidDate: t.exposeInt("entriesWithoutValidDate", { description: "Entries whose effective date could not be read (not in either count)" }),
    metricDetails: t.field({
      type: "JSON",
      ...shaped(mapOf(METRIC_DETAIL, "Metric name -> its state, entry count and example rows")),
      description: "Beside the plain numbers: each metric's state (PASS, WARN, FAIL), entry count and example rows",
      resolve: (m) => m.metricDetails,
    }),
  }),
});

const SourceProgressRef = builder.objectRef<SourceProgress>("AnalysisSourceProgress").implement({
  description: "A workflow state entered, or progress within a long step",
  fields: (t) => ({
    analysisSourceId: t.exposeID("analysisSourceId"),
    workflowState: t.field({ type: WorkflowStateEnum, resolve: (p) => p.workflowState }),
    percent: t.exposeInt("percent", { description: "Overall progress of the move, 0..100" }),
    stepPercent: t.exposeInt("stepPercent", { nullable: true, description: "Progress within the current step (staging, effective date metrics, parse), 0..100" }),
    message: t.exposeString("message", { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  analysisSourceEffectiveDateMetrics: t.field({
    type: EffectiveDateMetrics,
    authScopes: { permission: "api.analysis-sources.read" },
    args: { id: t.arg.id({ required: true }), period: t.arg({ type: PeriodTypeEnum, required: true }) },
    resolve: (_root, { id, period }, ctx) => service.analysisSourceEffectiveDateMetrics(ctx, id, period),
  }),
  transactionIdPreview: t.field({
    type: TransactionIdPreview,
    authScopes: { permission: "api.analysis-sources.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getTransactionIdPreview(ctx, id),
  }),
  transactionIdPreviews: t.field({
    type: pageOf(TransactionIdPreview, "TransactionIdPreviewPage"),
    authScopes: { permission: "api.analysis-sources.read" },
    args: { ...pageArgs(t), ...whereArg(t, "TransactionIdPreview", transactionIdPreviewColumns) },
    resolve: (_root, args, ctx) => service.queryTransactionIdPreviews(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createAnalysisSource: t.field({
    type: AsyncResult,
    description: "Creates the source and starts its ingestion (async result ANALYSIS_SOURCE_INGESTION, entityId = the source)",
    authScopes: { permission: "api.analysis-sources.write" },
    args: { input: t.arg({ type: CreateAnalysisSourceInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createAnalysisSource(ctx, input),
  }),
  updateAnalysisSource: t.field({
    type: AsyncResult,
    description: "Updates the source and moves its workflow (async result ANALYSIS_SOURCE_INGESTION); 409 outside the updatable states or while a job runs",
    authScopes: { permission: "api.analysis-sources.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateAnalysisSourceInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updateAnalysisSource(ctx, id, input),
  }),
}));

defineCrudFields({
  name: "AnalysisSource",
  type: AnalysisSource,
  columns: analysisSourceColumns,
  permissions: { read: "api.analysis-sources.read", delete: "api.analysis-sources.delete" },
  service: {
    get: service.getAnalysisSource,
    query: service.queryAnalysisSources,
    delete: service.deleteAnalysisSource,
  },
});

builder.subscriptionField("analysisSourceProgress", (t) =>
  t.field({
    type: SourceProgressRef,
    description:
      "Workflow states and step percentages of one analysis source: first its current state, then each change; ends with COMPLETED or FAILED (at once when the source already is)",
    authScopes: { permission: "api.analysis-sources.read" },
    args: { analysisSourceId: t.arg.id({ required: true }) },
    subscribe: (_root, { analysisSourceId }, ctx) =>
      new Repeater<SourceProgress>(async (push, stop) => {
        const events = ctx.app.pubsub.subscribe("transient-event");
        stop.then(() => void events.return?.());
        // Listen before reading the source (the first next() starts the listener): what is
        // published meanwhile waits in the listener, and what the read already covers is dropped.
        const pending = events.next();
        const current = await service
          .getAnalysisSource(ctx, analysisSourceId)
          .then((source) => currentSourceProgress(ctx.app, source))
          .catch((error) => {
            stop(error);
            return undefined;
          });
        if (!current) return;
        await push(current);
        if (isTerminalState(current.workflowState)) {
          stop();
          return;
        }
        (async () => {
          for (let next = await pending; !next.done; next = await events.next()) {
            const progress = sourceProgressEvents.payloadOf(next.value, analysisSourceId);
            if (!progress || supersededBy(progress, current)) continue;
            await push(progress);
            if (isTerminalState(progress.workflowState)) {
              stop();
              return;
            }
          }
        })().catch((error) => stop(error));
        await stop;
      }),
    resolve: (progress) => progress,
  }),
);

builder.objectField(AsyncResult, "analysisSource", (t) =>
  t.field({
    type: AnalysisSource,
    nullable: true,
    description: "The analysis source the job works on, when entityType is ANALYSIS_SOURCE",
    authScopes: { permission: "api.analysis-sources.read" },
    resolve: (r, _args, ctx) => (r.entityType === "ANALYSIS_SOURCE" ? service.analysisSourceOf(ctx, r.entityId) : null),
  }),
);

// The other directions of AnalysisSource.fileManagerFile and fileInfoVersion (file-manager and
// file-infos sit below this family, so their objects get these fields here).
builder.objectField(FileManagerFile, "analysisSources", (t) =>
  t.field({
    type: [AnalysisSource],
    description: "The analysis sources reading this file",
    authScopes: { permission: "api.analysis-sources.read" },
    args: { ...relatedListArgs(t), ...whereArg(t, "AnalysisSource", analysisSourceColumns) },
    resolve: (f, args, ctx) => childrenOf("analysisSource", analysisSourceColumns, "fileManagerFileId")(ctx, f.id, args),
  }),
);

builder.interfaceField(FileInfoNode, "analysisSource", (t) =>
  t.field({
    type: AnalysisSource,
    nullable: true,
    description: "The analysis source whose own reading of its file this is (analysisSourceId)",
    authScopes: { permission: "api.analysis-sources.read" },
    resolve: (i, _args, ctx) => service.analysisSourceOf(ctx, i.analysisSourceId),
  }),
);
