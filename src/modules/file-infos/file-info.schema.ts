import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { fileInfoColumns } from "./file-info.columns.js";
import { Entity, type AuditShape } from "../common/entity.js";
import { pageArgs, pageOf } from "../common/page.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { ALL_GROUPED_FORMATS } from "../../ingestion/types.js";
import { INTEGER, listOf, mapOf, namedShape, objectOf, ref, shaped, STRING } from "../common/json-shape.js";
import { FILE_INFO_STATUSES, FILE_INFO_TYPES } from "./file-info.columns.js";
import { ColumnMetadata, TableMetadata } from "./file-info-metrics.schema.js";
import * as service from "./file-info.service.js";
import "./file-info.jobs.js";

registerEventPermission("FILE_INFO", "api.file-infos.read");

export const FileInfoType = builder.enumType("FileInfoType", { values: FILE_INFO_TYPES });
export const FileInfoStatus = builder.enumType("FileInfoStatus", {
  description: "Where the file info's computation stands; until COMPLETE its other fields say nothing about the file",
  values: {
    PENDING: { description: "Being computed (a background job inspects the file after import): poll until COMPLETE or FAILED" },
    COMPLETE: { description: "Computed: type, format and (for TABULAR_FILE_INFO) the columns describe the file" },
    FAILED: { description: "Could not be computed (the file was unreadable or went away); the info stays a bare FILE_INFO" },
  } as const satisfies Record<(typeof FILE_INFO_STATUSES)[number], { description: string }>,
});
export const GroupedFormat = builder.enumType("GroupedFormat", {
  values: ALL_GROUPED_FORMATS,
});

/** Evidence of an effective date metric: a staged record (zero-based), the column and value it is about, or the whole row. */
export const DATA_PREVIEW = namedShape("DataPreview", objectOf({ rowIndex: INTEGER, position: INTEGER, value: STRING, row: listOf(STRING) }, ["rowIndex"]));
/**
 * A metric as an analysis source's deprecated `fileInfo` stores it: `state` and `dataPreviews`
 * (the typed FileInfoTableMetadata / FileInfoColumnMetadata of GET /file-info/{id} list each
 * metric's keys), its own details beside them.
 */
export const FILE_METRIC = namedShape("FileMetric", {
  type: "object",
  properties: { state: ref("MetricState"), dataPreviews: listOf({ type: "object" }) },
  additionalProperties: true,
});
export const FILE_METRICS = mapOf(FILE_METRIC, "Metric name -> metric");

interface FileInfoRow extends AuditShape {
  name: string;
  type: PrismaJson.FileInfoType;
  format: PrismaJson.GroupedFormat | null;
  formatDetected: boolean;
  fileManagerFileId: string | null;
  encoding: string | null;
  state: PrismaJson.FileInfoState;
  analysisSourceId: string | null;
}

export const FileInfoNode = builder.interfaceRef<FileInfoRow>("FileInfoNode").implement({
  description: "What was learnt about a file's content on import",
  interfaces: [Entity],
  resolveType: (info) => (info.type === "TABULAR_FILE_INFO" ? "TabularFileInfo" : "FileInfo"),
  fields: (t) => ({
    name: t.exposeString("name"),
    type: t.field({ type: FileInfoType, resolve: (i) => i.type }),
    format: t.field({ type: GroupedFormat, nullable: true, resolve: (i) => i.format }),
    formatDetected: t.exposeBoolean("formatDetected"),
    fileManagerFileId: t.exposeID("fileManagerFileId", { nullable: true }),
    encoding: t.exposeString("encoding", { nullable: true }),
    // Not in the wire reference's read keys (callers tolerate extra keys): without it a file info
    // still being computed looks exactly like a finished non-tabular FILE_INFO.
    status: t.field({ type: FileInfoStatus, description: "PENDING while being computed, then COMPLETE or FAILED", resolve: (i) => i.state }),
    analysisSourceId: t.exposeID("analysisSourceId", { nullable: true, description: "Set on an analysis source's own reading of its file (its fileInfoVersions name it)" }),
  }),
});

interface ColumnDataShape {
  position: number;
  columnName: string | null;
  synthetic: boolean;
  rowSample: unknown;
  columnMetadata: unknown;
}

const ColumnData = builder.objectRef<ColumnDataShape>("FileInfoColumnData").implement({
  fields: (t) => ({
    position: t.exposeInt("position"),
    columnName: t.exposeString("columnName", { nullable: true }),
    synthetic: t.exposeBoolean("synthetic"),
    rowSample: t.field({ type: "JSON", nullable: true, ...shaped(listOf(STRING)), resolve: (c) => c.rowSample ?? null }),
    columnMetadata: t.field({ type: ColumnMetadata, nullable: true, description: "The column's metrics, each with state (PASS/WARN/FAIL) and dataPreviews", resolve: (c) => (c.columnMetadata as Record<string, unknown>) ?? null }),
  }),
});

export const FileInfo = builder.prismaObject("FileInfo", {
  interfaces: [Entity, FileInfoNode],
  isTypeOf: (info) => (info as FileInfoRow).type !== "TABULAR_FILE_INFO",
  fields: () => ({}),
});

export const TabularFileInfo = builder.prismaObject("FileInfo", {
  variant: "TabularFileInfo",
  interfaces: [Entity, FileInfoNode],
  isTypeOf: (info) => (info as FileInfoRow).type === "TABULAR_FILE_INFO",
  fields: (t) => ({
    delimiter: t.exposeString("delimiter", { nullable: true }),
    firstLine: t.exposeString("firstLine", { nullable: true }),
    headerRowIndex: t.exposeInt("headerRowIndex", { nullable: true }),
    lastNonBlankRowIndex: t.exposeInt("lastNonBlankRowIndex", { nullable: true }),
    rowContentSnippets: t.field({ type: t.listRef(t.listRef("String")), description: "The first lines of the file, each a list of its cells", resolve: (i) => service.snippetRows(i.rowContentSnippets) }),
    columnData: t.field({ type: [ColumnData], resolve: (i) => i.columnData ?? [] }),
    tableMetadata: t.field({ type: TableMetadata, description: "Whole-file metrics, each with state (PASS/WARN/FAIL) and dataPreviews", resolve: (i) => i.tableMetadata ?? {} }),
  }),
});

builder.queryFields((t) => ({
  fileInfo: t.field({
    type: FileInfoNode,
    authScopes: { permission: "api.file-infos.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileInfo(ctx, id),
  }),
  fileInfos: t.field({
    type: pageOf(FileInfoNode, "FileInfoNodePage"),
    authScopes: { permission: "api.file-infos.read" },
    args: { ...pageArgs(t), ...whereArg(t, "FileInfo", fileInfoColumns) },
    resolve: (_root, args, ctx) => service.queryFileInfos(ctx, args),
  }),
}));
