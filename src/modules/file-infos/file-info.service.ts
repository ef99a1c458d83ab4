import { findEntity, queryEntities, type PageArgs } from "../../core/entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import { fileInfoColumns } from "./file-info.columns.js";

export function getFileInfo(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "fileInfo", "FileInfo", id);
}

export function queryFileInfos(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "fileInfo", columns: fileInfoColumns }, args);
}
