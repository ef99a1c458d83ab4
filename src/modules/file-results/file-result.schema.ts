import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { FileDownload } from "./file-download.js";
import { registerEventPermission } from "../events/event-permissions.js";
import * as service from "./file-result.service.js";

registerEventPermission("FILE_RESULT", "api.file-results.read");

export const FileResult = builder.prismaObject("FileResult", {
  description: "Output of a file-producing job; visible only to the API token that started it",
  interfaces: [Entity],
  fields: (t) => ({
    fileName: t.exposeString("fileName"),
    size: t.field({ type: "Long", nullable: true, resolve: (r) => r.size }),
  }),
});

builder.queryFields((t) => ({
  fileResult: t.field({
    type: FileResult,
    authScopes: { permission: "api.file-results.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileResult(ctx, id),
  }),
  fileResultDownload: t.field({
    type: FileDownload,
    description: "The file result's bytes are served by GET /api/v1/file-results/{id}/export",
    authScopes: { permission: "api.file-results.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getFileResultDownload(ctx, id),
  }),
}));
