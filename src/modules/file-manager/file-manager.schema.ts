import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { fileManagerColumns } from "./file-manager.columns.js";
import { Entity, type AuditShape } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf, relatedListArgs } from "../common/page.js";
import { Engagement } from "../engagements/engagement.schema.js";
import { owningEngagement } from "../engagements/engagement.service.js";
import { FileInfoNode } from "../file-infos/file-info.schema.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { FileDownload } from "../file-results/file-download.js";
import { FILE_STATUSES } from "./file-manager.columns.js";
import { CreateFileFromChunkedFileInput, CreateFileManagerDirectoryInput, FileManagerPlacementInput, FileManagerType, UpdateFileManagerEntityInput } from "./file-manager.inputs.js";
import * as service from "./file-manager.service.js";
import "./file-manager.cleanup.js";
import "./staged-uploads.cleanup.js";

registerEventPermission("FILE_MANAGER_FILE", "api.file-manager.read");
registerEventPermission("FILE_MANAGER_DIRECTORY", "api.file-manager.read");

export const FileStatus = builder.enumType("FileStatus", { values: FILE_STATUSES });

interface FileManagerRow extends AuditShape {
  engagementId: string;
  parentFileManagerEntityId: string | null;
  type: PrismaJson.FileManagerType;
  name: string;
}

/** Directories and files share one listing (POST /file-manager/query mixes them). */
export const FileManagerNode = builder.interfaceRef<FileManagerRow>("FileManagerNode").implement({
  description: "A directory or a file of an engagement's file manager",
  interfaces: [Entity],
  resolveType: (entity) => (entity.type === "FILE" ? "FileManagerFile" : "FileManagerDirectory"),
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    parentFileManagerEntityId: t.exposeID("parentFileManagerEntityId", { nullable: true }),
    type: t.field({ type: FileManagerType, resolve: (e) => e.type }),
    name: t.exposeString("name"),
  }),
});

builder.interfaceFields(FileManagerNode, (t) => ({
  engagement: t.field({ type: Engagement, authScopes: { permission: "api.engagements.read" }, resolve: (e, _args, ctx) => owningEngagement(ctx, e.engagementId) }),
  parent: t.field({
    type: FileManagerNode,
    nullable: true,
    description: "The directory holding this entry; null at the engagement's top level",
    resolve: (e, _args, ctx) => service.fileManagerEntityOf(ctx, e.parentFileManagerEntityId),
  }),
}));

export const FileManagerFile = builder.prismaObject("FileManagerEntity", {
  variant: "FileManagerFile",
  interfaces: [Entity, FileManagerNode],
  isTypeOf: (entity) => (entity as FileManagerRow).type === "FILE",
  fields: (t) => ({
    extension: t.exposeString("extension", { nullable: true }),
    originalName: t.exposeString("originalName", { nullable: true }),
    fileInfoId: t.exposeID("fileInfoId", { nullable: true }),
    status: t.field({ type: [FileStatus], resolve: (f) => f.status }),
    fileInfo: t.field({ type: FileInfoNode, nullable: true, authScopes: { permission: "api.file-infos.read" }, resolve: (f, _args, ctx) => service.fileInfoOf(ctx, f.fileInfoId) }),
  }),
});

export const FileManagerDirectory = builder.prismaObject("FileManagerEntity", {
  variant: "FileManagerDirectory",
  interfaces: [Entity, FileManagerNode],
  isTypeOf: (entity) => (entity as FileManagerRow).type === "DIRECTORY",
  fields: (t) => ({
    children: t.field({
      type: [FileManagerNode],
      description: "The files and directories in this directory (default order: name)",
      args: relatedListArgs(t),
      resolve: (d, args, ctx) => service.directoryChildren(ctx, d.id, args),
    }),
  }),
});

// File infos sit below the file manager: their way back to the file is added here.
builder.interfaceField(FileInfoNode, "fileManagerFile", (t) =>
  t.field({
    type: FileManagerFile,
    nullable: true,
    description: "The file this file info describes (fileManagerFileId)",
    authScopes: { permission: "api.file-manager.read" },
    resolve: async (i, _args, ctx) => {
      const file = await service.fileManagerEntityOf(ctx, i.fileManagerFileId);
      return file?.type === "FILE" ? file : null;
    },
  }),
);

builder.objectField(AsyncResult, "fileManagerFile", (t) =>
  t.field({
    type: FileManagerFile,
    nullable: true,
    description: "The file the job works on or produces, when entityType is FILE_MANAGER_FILE",
    authScopes: { permission: "api.file-manager.read" },
    resolve: async (r, _args, ctx) => {
      if (r.entityType !== "FILE_MANAGER_FILE") return null;
      const file = await service.fileManagerEntityOf(ctx, r.entityId);
      return file?.type === "FILE" ? file : null;
    },
  }),
);

const read = { permission: "api.file-manager.read" } as const;
const write = { permission: "api.file-manager.write" } as const;

builder.queryFields((t) => ({
  fileManagerEntity: t.field({
    type: FileManagerNode,
    authScopes: read,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileManagerEntity(ctx, id),
  }),
  fileManagerEntities: t.field({
    type: pageOf(FileManagerNode, "FileManagerNodePage"),
    authScopes: read,
    args: { ...pageArgs(t), ...whereArg(t, "FileManagerEntity", fileManagerColumns) },
    resolve: (_root, args, ctx) => service.queryFileManagerEntities(ctx, args),
  }),
  fileManagerFileDownload: t.field({
    type: FileDownload,
    description: "The file's bytes are served by GET /api/v1/file-manager/{id}/export",
    authScopes: read,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileDownload(ctx, id),
  }),
}));

builder.mutationFields((t) => ({
  createFileManagerDirectory: t.field({
    type: FileManagerDirectory,
    authScopes: write,
    args: { input: t.arg({ type: CreateFileManagerDirectoryInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createDirectory(ctx, input),
  }),
  importFileManagerFile: t.field({
    type: FileManagerFile,
    description: "Multipart only: POST /api/v1/file-manager/import with parts fileManagerFile (JSON) and file (bytes), or POST /api/graphql as a GraphQL multipart request with the file part mapped to variables.file (declared Upload!)",
    authScopes: write,
    args: {
      input: t.arg({ type: FileManagerPlacementInput, required: true }),
      file: t.arg({ type: "Upload", required: true, description: "The file part of this multipart request (REST upload, or GraphQL multipart request mapped to this variable)" }),
    },
    resolve: (_root, { input, file }, ctx) => service.importFile(ctx, input, file),
  }),
  createFileFromChunkedFile: t.field({
    type: FileManagerFile,
    description: "Assembles a completely uploaded chunked file into a new file",
    authScopes: write,
    args: { input: t.arg({ type: CreateFileFromChunkedFileInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createFileFromChunkedFile(ctx, input.chunkedFileId, input),
  }),
  importFileFromChunkedFile: t.field({
    type: FileManagerFile,
    deprecationReason: "use createFileFromChunkedFile",
    authScopes: write,
    args: { chunkedFileId: t.arg.id({ required: true }), input: t.arg({ type: FileManagerPlacementInput, required: true }) },
    resolve: (_root, { chunkedFileId, input }, ctx) => service.createFileFromChunkedFile(ctx, chunkedFileId, input),
  }),
  updateFileManagerEntity: t.field({
    type: FileManagerNode,
    description: "Rename or move a file or directory (send the latest version)",
    authScopes: write,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateFileManagerEntityInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updateFileManagerEntity(ctx, id, input),
  }),
  deleteFileManagerEntity: t.field({
    type: DeleteResult,
    description: "Deletes a file, or a directory with its contents",
    authScopes: { permission: "api.file-manager.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteFileManagerEntity(ctx, id),
  }),
}));
