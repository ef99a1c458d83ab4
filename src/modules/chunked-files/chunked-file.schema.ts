import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { chunkedFileColumns } from "./chunked-file.columns.js";
import * as service from "./chunked-file.service.js";
import "./chunked-file.cleanup.js";

const ChunkedFilePart = builder.objectRef<{ offset: bigint; size: bigint }>("ChunkedFilePart").implement({
  fields: (t) => ({
    offset: t.field({ type: "Long", resolve: (p) => p.offset }),
    size: t.field({ type: "Long", resolve: (p) => p.size }),
  }),
});

export const ChunkedFile = builder.prismaObject("ChunkedFile", {
  description: "A large file uploaded in parts; complete it within 7 days",
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    size: t.field({ type: "Long", resolve: (f) => f.size }),
    chunkedFileParts: t.field({
      type: [ChunkedFilePart],
      select: { parts: { orderBy: { offset: "asc" } } },
      resolve: (f) => f.parts,
    }),
  }),
});

const CreateChunkedFileInput = builder.inputType("CreateChunkedFileInput", {
  fields: (t) => ({
    name: t.string({ required: true, description: "File name with extension" }),
    size: t.field({ type: "Long", required: true, description: "Total size in bytes" }),
  }),
});

const ChunkedFilePartInput = builder.inputType("ChunkedFilePartInput", {
  fields: (t) => ({
    offset: t.field({ type: "Long", required: true, description: "Where the part starts, from 0" }),
    size: t.field({ type: "Long", required: true, description: "Bytes in the part" }),
  }),
});

defineCrudFields({
  name: "ChunkedFile",
  type: ChunkedFile,
  columns: chunkedFileColumns,
  createInput: CreateChunkedFileInput,
  permissions: { read: "api.file-manager.read", write: "api.file-manager.write", delete: "api.file-manager.delete" },
  service: {
    get: service.getChunkedFile,
    query: service.queryChunkedFiles,
    create: service.createChunkedFile,
    delete: service.deleteChunkedFile,
  },
  descriptions: {
    get: "Only the token that declared a chunked file sees it",
    query: "The calling token's chunked files (within their 7 days)",
    delete: "Gives up a chunked upload: the parts received are deleted with it",
  },
});

builder.mutationFields((t) => ({
  uploadChunkedFilePart: t.prismaField({
    type: "ChunkedFile",
    description: "Multipart only: POST /api/v1/chunked-files/{id}/part with parts chunkedFilePart (JSON) and fileChunk (bytes)",
    authScopes: { permission: "api.file-manager.write" },
    args: {
      id: t.arg.id({ required: true }),
      part: t.arg({ type: ChunkedFilePartInput, required: true }),
      chunk: t.arg({ type: "Upload", required: true, description: "The fileChunk part: staged by the REST upload, or a GraphQL multipart request's file part mapped to this variable" }),
    },
    resolve: (_query, _root, { id, part, chunk }, ctx) => service.uploadChunkedFilePart(ctx, id, part, chunk),
  }),
}));
