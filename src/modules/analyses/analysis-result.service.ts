import { findEntity, queryEntities, type PageArgs } from "../../entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import { analysisResultColumns } from "./analysis.columns.js";

/** Results are written by analysis runs (the engine); here they are read. */
export function getAnalysisResult(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisResult", "AnalysisResult", id);
}

export function queryAnalysisResults(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisResult", columns: analysisResultColumns }, args);
}
