import { NotFoundError } from "../../core/errors.js";
import { queryEntities, type PageArgs } from "../../core/entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import { analysisResultColumns } from "./analysis.columns.js";

/** Results are written by analysis runs (the engine); here they are read. */
export async function getAnalysisResult(ctx: RequestContext, id: string) {
  const result = await ctx.prisma.analysisResult.findUnique({ where: { id } });
  if (!result) throw new NotFoundError("AnalysisResult", id);
  return result;
}

export function queryAnalysisResults(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app.pool, { table: "analysis_result", columns: analysisResultColumns }, args, (ids) => ctx.prisma.analysisResult.findMany({ where: { id: { in: ids } } }));
}
