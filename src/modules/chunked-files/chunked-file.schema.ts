import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf } from "../common/page.js";
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

builder.queryFields((t) => ({
  chunkedFile: t.prismaField({
    type: "ChunkedFile",
    description: "Only the token that declared a chunked file sees it",
    authScopes: { permission: "api.file-manager.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, { id }, ctx) => service.getChunkedFile(ctx, id),
  }),
  chunkedFiles: t.field({
    type: pageOf(ChunkedFile, "ChunkedFilePage"),
    description: "The calling token's chunked files (within their 7 days)",
    authScopes: { permission: "api.file-manager.read" },
    args: pageArgs(t),
    resolve: (_root, args, ctx) => service.queryChunkedFiles(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  deleteChunkedFile: t.field({
    type: DeleteResult,
    description: "Gives up a chunked upload: the parts received are deleted with it",
    authScopes: { permission: "api.file-manager.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteChunkedFile(ctx, id),
  }),
  createChunkedFile: t.prismaField({
    type: "ChunkedFile",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: CreateChunkedFileInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => service.createChunkedFile(ctx, input),
  }),
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
