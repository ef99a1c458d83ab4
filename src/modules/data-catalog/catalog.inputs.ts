import { builder } from "../../graphql/builder.js";
import type { InputFields, InputOf } from "../common/crud-fields.js";
import { ColumnType } from "../data-tables/data-table.schema.js";
import { CATALOG_SOURCES, OPERATION_TYPES } from "./catalog.columns.js";

export const DataCatalogSource = builder.enumType("DataCatalogSource", { values: CATALOG_SOURCES });
export const DataFlowOperationType = builder.enumType("DataFlowOperationType", { values: OPERATION_TYPES });

const ColumnInput = builder.inputType("TabularSchemaColumnInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    displayName: t.string(),
    description: t.string(),
    columnType: t.field({ type: ColumnType, required: true }),
    nullable: t.boolean({ description: "Default: the source column's" }),
    scale: t.int(),
  }),
});

export const SchemaInput = builder.inputType("TabularSchemaInput", {
  fields: (t) => ({ displayName: t.string(), description: t.string(), columns: t.field({ type: [ColumnInput], required: true }) }),
});
/** An entry's schema as given: `nullable` left out takes the source column's. */
export type TabularSchemaInput = InputOf<typeof SchemaInput>;

const RemapPairInput = builder.inputType("RemapOperationInput", { fields: (t) => ({ source: t.string({ required: true }), destination: t.string({ required: true }) }) });
const OperationInput = builder.inputType("DataFlowOperationInput", {
  fields: (t) => ({ type: t.field({ type: DataFlowOperationType, required: true }), remapOperations: t.field({ type: [RemapPairInput], required: true }) }),
});

const entryFields = <Required extends boolean>(t: InputFields, create: Required) => ({
  name: t.string({ required: create }),
  description: t.string(),
  source: t.field({ type: DataCatalogSource, required: create }),
  dataTableId: t.id({ description: "source DATA_TABLE" }),
  connectionId: t.id({ description: "source CONNECTION" }),
  tableId: t.string({ description: "source CONNECTION: the connection table's tableId" }),
  dataFlowId: t.id({ description: "source DATA_FLOW" }),
  schema: t.field({ type: SchemaInput, required: create, description: "A subset of the source's columns with their exact name and columnType" }),
});
export const CreateDataCatalogEntryInput = builder.inputType("CreateDataCatalogEntryInput", { fields: (t) => entryFields(t, true) });
export type CreateDataCatalogEntryInput = InputOf<typeof CreateDataCatalogEntryInput>;
export const UpdateDataCatalogEntryInput = builder.inputType("UpdateDataCatalogEntryInput", { fields: (t) => ({ ...entryFields(t, false), version: t.int({ required: true }) }) });
export type UpdateDataCatalogEntryInput = InputOf<typeof UpdateDataCatalogEntryInput>;

const flowFields = (t: InputFields) => ({
  name: t.string({ required: true }),
  description: t.string(),
  inputDataCatalogEntryId: t.id({ required: true }),
  operations: t.field({ type: [OperationInput], required: true }),
});
export const CreateDataFlowInput = builder.inputType("CreateDataFlowInput", { fields: (t) => flowFields(t) });
export type CreateDataFlowInput = InputOf<typeof CreateDataFlowInput>;
export const UpdateDataFlowInput = builder.inputType("UpdateDataFlowInput", { fields: (t) => ({ ...flowFields(t), version: t.int({ required: true }) }) });
export type UpdateDataFlowInput = InputOf<typeof UpdateDataFlowInput>;

const SortPropertyInput = builder.inputType("SortPropertyInput", { fields: (t) => ({ field: t.string({ required: true }), direction: t.string({ description: "ASC (default) or DESC" }) }) });
export const GetDataInput = builder.inputType("GetDataInput", {
  fields: (t) => ({
    analysisId: t.id({ required: true, description: "The analysis the imported data table belongs to" }),
    name: t.string({ description: "Names the data table's logicalName (default: from the entry or flow)" }),
    sortProperties: t.field({ type: [SortPropertyInput], description: "Order of the imported rows" }),
  }),
});
export type GetDataInput = InputOf<typeof GetDataInput>;
export const ConnectionGetDataInput = builder.inputType("ConnectionGetDataInput", {
  fields: (t) => ({
    tableId: t.string({ required: true, description: "A discovered connection table's tableId" }),
    analysisId: t.id({ required: true }),
    name: t.string(),
    columns: t.stringList({ description: "Columns to read (default all)" }),
    sortProperties: t.field({ type: [SortPropertyInput] }),
  }),
});
export type ConnectionGetDataInput = InputOf<typeof ConnectionGetDataInput>;
