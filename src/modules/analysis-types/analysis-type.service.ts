import { findEntity, queryEntities, type PageArgs } from "../../entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import type { SourceConfiguration } from "../catalogue/analysis-types.data.js";
import type { ColumnDefinition } from "../catalogue/analysis-source-types.data.js";
import { analysisSourceTypeColumns, analysisTypeColumns } from "./analysis-type.columns.js";

/** The catalogue is read-only: seeded by migration, never written through the API. */
export function getAnalysisType(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisType", "AnalysisType", id);
}

export function queryAnalysisTypes(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisType", columns: analysisTypeColumns }, args);
}

export function getAnalysisSourceType(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisSourceType", "AnalysisSourceType", id);
}

export function queryAnalysisSourceTypes(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisSourceType", columns: analysisSourceTypeColumns }, args);
}

export const sourceConfigurationsOf = (type: { sourceConfigurations: SourceConfiguration[] }) => type.sourceConfigurations;
export const columnDefinitionsOf = (type: { columnDefinitions: ColumnDefinition[] }) => type.columnDefinitions;
