import { builder } from "../../graphql/builder.js";
import { dataTableColumns } from "./data-table.columns.js";
import { listOf, mapOf, ref, shaped } from "../common/json-shape.js";
import { COLUMN_TYPES } from "../../query-language/columns.js";
import { Entity } from "../common/entity.js";
import { Engagement } from "../engagements/engagement.schema.js";
import { owningEngagement } from "../engagements/engagement.service.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { API_STABILITIES, type ApiStability as ApiStabilityValue, type DataTableColumn as StoredColumn } from "./data-table-definition.js";
import type { DataPage } from "./data-table-rows.js";
import * as service from "./data-table.service.js";
import { CsvConfigurationInput, DataTableDataInput, DataTableExportInput, DataTableSortInput, ImportFileFromDataTableInput, SortDirection } from "./data-table.inputs.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { entityById } from "../common/relations.js";

const dataTableById = entityById("dataTable");

export const ColumnType = builder.enumType("ColumnType", { values: COLUMN_TYPES });
export const ApiStability = builder.enumType("ApiStability", { values: API_STABILITIES });

const DataTableColumn = builder.objectRef<StoredColumn>("DataTableColumn").implement({
  fields: (t) => ({
    field: t.exposeString("field"),
    type: t.field({ type: ColumnType, resolve: (c) => c.type }),
    originalName: t.exposeString("originalName", { nullable: true }),
    platformField: t.exposeString("platformField", { nullable: true }),
    nullable: t.exposeBoolean("nullable"),
    equalitySearch: t.exposeBoolean("equalitySearch"),
    rangeSearch: t.exposeBoolean("rangeSearch"),
    containsSearch: t.exposeBoolean("containsSearch"),
    allowCaseInsensitiveSubstringSearch: t.exposeBoolean("allowCaseInsensitiveSubstringSearch"),
    caseInsensitiveSubstringSearch: t.boolean({ description: "Same as allowCaseInsensitiveSubstringSearch", resolve: (c) => c.allowCaseInsensitiveSubstringSearch }),
    caseInsensitivePrefixSearch: t.exposeBoolean("caseInsensitivePrefixSearch"),
    keywordSearch: t.exposeBoolean("keywordSearch"),
    filterOnly: t.exposeBoolean("filterOnly"),
    sortable: t.exposeBoolean("sortable"),
    typeaheadDataTableId: t.exposeID("typeaheadDataTableId", { nullable: true }),
  }),
});

export const DataTable = builder.prismaObject("DataTable", {
  description: "A queryable table of ledger rows (spec 2.10), e.g. an analysis source's parsed entries",
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    analysisSourceId: t.exposeID("analysisSourceId", { nullable: true }),
    analysisResultId: t.exposeID("analysisResultId", { nullable: true }),
    logicalName: t.exposeString("logicalName", { nullable: true }),
    type: t.exposeString("type", { nullable: true }),
    apiStability: t.field({ type: ApiStability, resolve: (d) => d.apiStability as ApiStabilityValue }),
    rowCount: t.field({ type: "Long", resolve: (d) => d.rowCount }),
    columns: t.field({ type: [DataTableColumn], resolve: (d) => d.columns }),
    analysis: t.relation("analysis", { authScopes: { permission: "api.analyses.read" } }),
    analysisResult: t.relation("analysisResult", { nullable: true, authScopes: { permission: "api.analyses.read" } }),
    engagement: t.field({ type: Engagement, authScopes: { permission: "api.engagements.read" }, resolve: (d, _args, ctx) => owningEngagement(ctx, d.engagementId) }),
    analysisSource: t.relation("analysisSource", { nullable: true, authScopes: { permission: "api.analysis-sources.read" } }),
  }),
});

builder.objectField(DataTableColumn, "typeaheadDataTable", (t) =>
  t.field({
    type: DataTable,
    nullable: true,
    description: "The table listing this column's distinct values for type-ahead (typeaheadDataTableId)",
    extensions: { rest: false },
    authScopes: { permission: "api.data-tables.read" },
    resolve: (c, _args, ctx) => (c.typeaheadDataTableId ? dataTableById(ctx, c.typeaheadDataTableId) : null),
  }),
);

const DataTablePage = builder.objectRef<DataPage>("DataTableDataPage").implement({
  description: "One page of a data table's rows; each row is an object keyed by column field",
  fields: (t) => ({
    content: t.field({
      type: ["JSON"],
      ...shaped(listOf(mapOf({ type: ["string", "integer", "number", "boolean", "array", "object"] }, "Column field -> value (MONEY_100 and INT64 as integers, DATE as YYYY-MM-DD, ARRAY_* as lists, MAP_SCALARS and JSONB as objects); nulls omitted"))),
      resolve: (p) => p.content,
    }),
    number: t.int({ resolve: (p) => p.page }),
    size: t.int({ resolve: (p) => p.size }),
    numberOfElements: t.int({ resolve: (p) => p.content.length }),
    first: t.boolean({ resolve: (p) => p.page === 0 }),
    last: t.boolean({ resolve: (p) => p.last }),
    endCursor: t.string({ nullable: true, description: "Position of the page's last row: pass it as after for the next page (keyset paging, as fast deep in the table as on the first page)" , resolve: (p) => p.endCursor }),
    hasNextPage: t.boolean({ resolve: (p) => !p.last }),
  }),
});

defineCrudFields({
  name: "DataTable",
  type: DataTable,
  columns: dataTableColumns,
  listArgs: (t) => ({ includeUnstableSchemas: t.arg.boolean({ description: "Include tables whose schema is UNSTABLE (default false)" }) }),
  permissions: { read: "api.data-tables.read" },
  service: { get: service.getDataTable, query: service.queryDataTables },
});

builder.queryFields((t) => ({
  dataTableData: t.field({
    type: DataTablePage,
    description: "A page of rows filtered and sorted in the database",
    authScopes: { permission: "api.data-tables.read" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: DataTableDataInput }) },
    resolve: (_root, { id, input }, ctx) => service.dataTablePage(ctx, id, input ?? {}),
  }),
}));

builder.mutationFields((t) => ({
  exportDataTable: t.field({
    type: AsyncResult,
    description: "Starts a DATA_TABLE_EXPORT writing the rows as CSV into a file result (visible to this token only)",
    authScopes: { permission: "api.data-tables.read" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: DataTableExportInput }) },
    resolve: (_root, { id, input }, ctx) => service.exportDataTable(ctx, id, input ?? {}),
  }),
  importFileFromDataTable: t.field({
    type: AsyncResult,
    description: "Starts a DATA_TABLE_EXPORT writing the rows as a CSV file into the file manager (also needs api.data-tables.read); the target is the new file",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: ImportFileFromDataTableInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.importFileFromDataTable(ctx, input),
  }),
}));
