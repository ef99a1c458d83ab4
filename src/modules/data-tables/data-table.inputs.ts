import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { ref, shaped } from "../common/json-shape.js";

export const SortDirection = builder.enumType("SortDirection", { values: ["ASC", "DESC"] as const });

export const DataTableSortInput = builder.inputType("DataTableSortInput", {
  fields: (t) => ({
    field: t.string({ required: true }),
    direction: t.field({ type: SortDirection, description: "ASC (default) or DESC" }),
  }),
});

/** The wire's csvConfiguration / innerListCsvConfiguration (names as in univocity's CsvFormat). */
export const CsvConfigurationInput = builder.inputType("CsvConfigurationInput", {
  fields: (t) => ({
    delimiter: t.string({ description: "One character (default ,)" }),
    quote: t.string({ description: "One character (default \")" }),
    quoteEscape: t.string({ description: "Written before a quote inside a quoted value (default: the quote)" }),
    quoteEscapeEscape: t.string({ description: "Written before quoteEscape inside a quoted value when it differs from quote" }),
  }),
});

export const DataTableDataInput = builder.inputType("DataTableDataInput", {
  fields: (t) => ({
    page: t.int({ description: "Zero-based page (default 0)" }),
    pageSize: t.int({ description: "Rows per page, 1 to 2000 (default 100)" }),
    query: t.field({ type: "JSON", ...shaped(ref("Filter")), description: "Query-language filter over the table's columns (spec 4.2)" }),
    sort: t.field({ type: [DataTableSortInput], description: "One {field, direction} or a list; rowid ends every order" }),
    fields: t.stringList({ description: "The columns to return, in this order (default all)" }),
    excludeFields: t.stringList({ description: "Columns left out of the rows" }),
    savedFilterId: t.id({ description: "A saved filter whose condition is applied (ANDed with query)" }),
    after: t.string({ description: "Keyset paging: the endCursor of the previous page (same query and sort; page stays 0)" }),
  }),
});

const EXPORT_FIELDS = `fields: Columns in order (default: all but KEYWORD_SEARCH and filterOnly ones); limit; sort (default rowid ASC; ignored above 2 million exported rows, which are unsorted); query; csvConfiguration; innerListCsvConfiguration (entries tables have no list columns)`;

export const DataTableExportInput = builder.inputType("DataTableExportInput", {
  description: EXPORT_FIELDS,
  fields: (t) => ({
    fields: t.stringList(),
    limit: t.field({ type: "Long" }),
    sort: t.field({ type: DataTableSortInput }),
    query: t.field({ type: "JSON", ...shaped(ref("Filter")) }),
    csvConfiguration: t.field({ type: CsvConfigurationInput }),
    innerListCsvConfiguration: t.field({ type: CsvConfigurationInput }),
  }),
});

export const ImportFileFromDataTableInput = builder.inputType("ImportFileFromDataTableInput", {
  fields: (t) => ({
    dataTableId: t.id({ required: true }),
    engagementId: t.id({ description: "The data table's engagement (default)" }),
    name: t.string({ description: "File name without extension (the file is .csv); default the logical name" }),
    parentFileManagerEntityId: t.id(),
    fields: t.stringList({ description: EXPORT_FIELDS }),
    limit: t.field({ type: "Long" }),
    sort: t.field({ type: DataTableSortInput }),
    query: t.field({ type: "JSON", ...shaped(ref("Filter")) }),
    csvConfiguration: t.field({ type: CsvConfigurationInput }),
    innerListCsvConfiguration: t.field({ type: CsvConfigurationInput }),
  }),
});

export type CsvConfigurationInput = InputOf<typeof CsvConfigurationInput>;
/** The body of POST /data-tables/{id}/export (and the export part of import-from-data-table). */
export type ExportInput = InputOf<typeof DataTableExportInput>;
export type ImportFromDataTableInput = InputOf<typeof ImportFileFromDataTableInput>;
