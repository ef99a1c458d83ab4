import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { fileResultColumns } from "./file-result.columns.js";
import { FileDownload } from "./file-download.js";
import { registerOwnedEventType } from "../events/event-permissions.js";
import * as service from "./file-result.service.js";

// Like the file result itself: events about it (export.ready, its job's) reach only the starting token.
registerOwnedEventType("FILE_RESULT");

export const FileResult = builder.prismaObject("FileResult", {
  description: "Output of a file-producing job; visible only to the API token that started it",
  interfaces: [Entity],
  fields: (t) => ({
    fileName: t.exposeString("fileName"),
    size: t.field({ type: "Long", nullable: true, resolve: (r) => r.size }),
  }),
});

// Any authenticated token: whoever started an export may fetch its file whatever area the export
// belongs to; the service answers 404 for another token's file result (wire reference 4).
defineCrudFields({
  name: "FileResult",
  type: FileResult,
  columns: fileResultColumns,
  permissions: { read: "authenticated" },
  service: { get: service.getFileResult, query: service.queryFileResults },
  descriptions: { query: "The calling token's file results" },
});

builder.queryFields((t) => ({
  fileResultDownload: t.field({
    type: FileDownload,
    description: "The file result's bytes are served by GET /api/v1/file-results/{id}/export",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileResultDownload(ctx, id),
  }),
}));

builder.objectField(AsyncResult, "fileResult", (t) =>
  t.field({
    type: FileResult,
    nullable: true,
    description: "The file the job produces, when entityType is FILE_RESULT (only for the token that started it)",
    resolve: (r, _args, ctx) => (r.entityType === "FILE_RESULT" ? service.fileResultOf(ctx, r.entityId) : null),
  }),
);

