import { NotFoundError } from "../../core/errors.js";
import { queryEntities, type PageArgs } from "../../core/entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import type { SourceConfiguration } from "../catalogue/analysis-types.data.js";
import type { ColumnDefinition } from "../catalogue/analysis-source-types.data.js";
import { analysisSourceTypeColumns, analysisTypeColumns } from "./analysis-type.columns.js";

/** The catalogue is read-only: seeded by migration, never written through the API. */
export async function getAnalysisType(ctx: RequestContext, id: string) {
  const type = await ctx.prisma.analysisType.findUnique({ where: { id } });
  if (!type) throw new NotFoundError("AnalysisType", id);
  return type;
}

export function queryAnalysisTypes(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app.pool, { table: "analysis_type", columns: analysisTypeColumns }, args, (ids) => ctx.prisma.analysisType.findMany({ where: { id: { in: ids } } }));
}

export async function getAnalysisSourceType(ctx: RequestContext, id: string) {
  const type = await ctx.prisma.analysisSourceType.findUnique({ where: { id } });
  if (!type) throw new NotFoundError("AnalysisSourceType", id);
  return type;
}

export function queryAnalysisSourceTypes(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app.pool, { table: "analysis_source_type", columns: analysisSourceTypeColumns }, args, (ids) =>
    ctx.prisma.analysisSourceType.findMany({ where: { id: { in: ids } } }),
  );
}

export const sourceConfigurationsOf = (type: { sourceConfigurations: unknown }) => type.sourceConfigurations as SourceConfiguration[];
export const columnDefinitionsOf = (type: { columnDefinitions: unknown }) => type.columnDefinitions as ColumnDefinition[];
