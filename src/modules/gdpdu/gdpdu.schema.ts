import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { gdpduUnpackJobColumns } from "./gdpdu.columns.js";
import { Entity } from "../common/entity.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { GDPDU_UNPACK_STATUSES } from "./gdpdu.columns.js";
import { GdpduUnpackInput } from "./gdpdu.inputs.js";
import * as service from "./gdpdu.service.js";
import { FileManagerDirectory, FileManagerFile, FileManagerNode } from "../file-manager/file-manager.schema.js";
import { fileManagerEntityOf } from "../file-manager/file-manager.service.js";
import { Engagement } from "../engagements/engagement.schema.js";
import { owningEngagement } from "../engagements/engagement.service.js";
import type { RequestContext } from "../../graphql/context.js";

/** File manager entries by id, batched per response; an id of the other kind (or a deleted entry) gives null. */
async function entryOf(ctx: RequestContext, id: string | null | undefined, type: "FILE" | "DIRECTORY") {
  const entry = await fileManagerEntityOf(ctx, id);
  return entry?.type === type ? entry : null;
}

async function entriesOf(ctx: RequestContext, ids: readonly string[], type: "FILE" | "DIRECTORY") {
  return (await Promise.all(ids.map((id) => entryOf(ctx, id, type)))).filter((e) => e !== null);
}

const FILE_MANAGER_READ = { permission: "api.file-manager.read" } as const;
import type { UnpackedTable } from "./gdpdu.json-columns.js";

registerEventPermission("GDPDU_UNPACK_JOB", "api.file-manager.read");

const UnpackStatus = builder.enumType("GdpduUnpackStatus", { values: GDPDU_UNPACK_STATUSES });

const UnpackedTableRef = builder.objectRef<UnpackedTable>("GdpduUnpackedTable").implement({
  description: "One table of the archive and the CSV file it became",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    url: t.exposeString("url", { description: "The table's file inside the archive" }),
    fileManagerFileId: t.exposeID("fileManagerFileId"),
    fileManagerFile: t.field({ type: FileManagerFile, nullable: true, description: "The CSV file (fileManagerFileId)", extensions: { rest: false }, authScopes: FILE_MANAGER_READ, resolve: (tb, _a, ctx) => entryOf(ctx, tb.fileManagerFileId, "FILE") }),
    rowCount: t.exposeInt("rowCount"),
    columnCount: t.exposeInt("columnCount"),
  }),
});

export const GdpduUnpackJob = builder.prismaObject("GdpduUnpackJob", {
  description: "An unpack of a GDPdU archive and the file manager directory and files it created",
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    fileManagerFileId: t.exposeID("fileManagerFileId", { description: "The archive" }),
    parentFileManagerEntityId: t.exposeID("parentFileManagerEntityId", { nullable: true }),
    name: t.exposeString("name", { description: "Name of the directory created for the tables" }),
    status: t.field({ type: UnpackStatus, resolve: (j) => j.status }),
    directoryId: t.exposeID("directoryId", { nullable: true }),
    fileManagerFileIds: t.exposeIDList("fileManagerFileIds"),
    fileManagerDirectoryIds: t.exposeIDList("fileManagerDirectoryIds"),
    tables: t.field({ type: [UnpackedTableRef], resolve: (j) => j.tables }),
    engagement: t.field({ type: Engagement, authScopes: { permission: "api.engagements.read" }, resolve: (j, _a, ctx) => owningEngagement(ctx, j.engagementId) }),
    fileManagerFile: t.field({ type: FileManagerFile, nullable: true, description: "The archive (fileManagerFileId)", authScopes: FILE_MANAGER_READ, resolve: (j, _a, ctx) => entryOf(ctx, j.fileManagerFileId, "FILE") }),
    parent: t.field({ type: FileManagerNode, nullable: true, description: "Where the new directory went (parentFileManagerEntityId)", authScopes: FILE_MANAGER_READ, resolve: async (j, _a, ctx) => (await fileManagerEntityOf(ctx, j.parentFileManagerEntityId)) }),
    directory: t.field({ type: FileManagerDirectory, nullable: true, description: "The directory created for the tables (directoryId)", authScopes: FILE_MANAGER_READ, resolve: (j, _a, ctx) => entryOf(ctx, j.directoryId, "DIRECTORY") }),
    fileManagerFiles: t.field({ type: [FileManagerFile], description: "The files created (fileManagerFileIds), the deleted left out", authScopes: FILE_MANAGER_READ, resolve: (j, _a, ctx) => entriesOf(ctx, j.fileManagerFileIds, "FILE") }),
    fileManagerDirectories: t.field({ type: [FileManagerDirectory], description: "The directories created (fileManagerDirectoryIds), the deleted left out", authScopes: FILE_MANAGER_READ, resolve: (j, _a, ctx) => entriesOf(ctx, j.fileManagerDirectoryIds, "DIRECTORY") }),
    error: t.exposeString("error", { nullable: true }),
  }),
});

defineCrudFields({
  name: "GdpduUnpackJob",
  type: GdpduUnpackJob,
  columns: gdpduUnpackJobColumns,
  permissions: { read: "api.file-manager.read" },
  service: {
    get: service.getGdpduUnpackJob,
    query: service.queryGdpduUnpackJobs,
  },
});

builder.mutationFields((t) => ({
  unpackGdpduArchive: t.field({
    type: AsyncResult,
    description: "Starts a GDPDU_UNPACK_JOB: one UTF-8 CSV per table of the archive, in a new directory",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: GdpduUnpackInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.startGdpduUnpack(ctx, input),
  }),
}));
