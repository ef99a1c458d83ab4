import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { FileManagerFile } from "../file-manager/file-manager.schema.js";
import * as service from "./json-table.service.js";
import "./json-table.cleanup.js";

export const JsonTable = builder.prismaObject("JsonTable", {
  description: "Rows uploaded page by page (one page at a time); deleted after 7 days",
  interfaces: [Entity],
  fields: (t) => ({
    headers: t.exposeStringList("headers", { description: "Every key seen, in order of first appearance" }),
    currentSize: t.field({ type: "Long", description: "Bytes appended so far", resolve: (j) => j.currentSize }),
  }),
});

const ImportFromJsonTableInput = builder.inputType("ImportFileFromJsonTableInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    jsonTableId: t.id({ required: true }),
    name: t.string({ required: true, description: "File name without extension (the file is .csv)" }),
    parentFileManagerEntityId: t.id(),
  }),
});

builder.queryFields((t) => ({
  jsonTable: t.field({
    type: JsonTable,
    authScopes: { permission: "api.file-manager.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getJsonTable(ctx, id),
  }),
}));

builder.mutationFields((t) => ({
  createJsonTable: t.field({
    type: JsonTable,
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: "JSON", description: "{} (a read body is accepted too)" }) },
    resolve: (_root, { input }, ctx) => service.createJsonTable(ctx, input),
  }),
  appendJsonTable: t.field({
    type: JsonTable,
    description:
      "Appends one page: an array of row objects (keys are column headers), as exactly one of rows or rowsText. 409 while another page is being appended.",
    authScopes: { permission: "api.file-manager.write" },
    args: {
      id: t.arg.id({ required: true }),
      rows: t.arg({
        type: "JSON",
        description:
          "The page as a JSON value. It reaches the server already parsed by the transport, so integer-like keys (\"2023\") come before the others and numbers are doubles; use rowsText to keep the key order and the numbers as written.",
      }),
      rowsText: t.arg.string({ description: "The page as JSON text, read like the REST body of POST /api/v1/json-tables/{id}/append: key order and numbers exactly as written" }),
    },
    resolve: (_root, { id, rows, rowsText }, ctx) => service.appendJsonTable(ctx, id, { rows, rowsText }),
  }),
  appendJsonTableFromBody: t.field({
    type: JsonTable,
    description:
      "Appends one page sent as the request body of POST /api/v1/json-tables/{id}/append, which streams it into storage first so that a large page is never parsed whole. GraphQL clients use appendJsonTable.",
    authScopes: { permission: "api.file-manager.write" },
    args: { id: t.arg.id({ required: true }), page: t.arg({ type: "Upload", required: true, description: "The page (a JSON array of objects): the request body staged by the REST route, or a GraphQL multipart request's file part mapped to this variable" }) },
    resolve: (_root, { id, page }, ctx) => service.appendJsonTableFromBody(ctx, id, page),
  }),
  importFileFromJsonTable: t.field({
    type: FileManagerFile,
    description: "Merges every page into one CSV file (header: keys in order of first appearance)",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: ImportFromJsonTableInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.importFileFromJsonTable(ctx, input),
  }),
}));
