/**
 * The types of `risk_segmentation_config.segments` and `dashboard_filters`, named in
 * `prisma/schema/saved-filters.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { FilterJson } from "../../query-language/index.js";
import type { Segment } from "./risk-segmentation.service.js";

declare global {
  namespace PrismaJson {
    type RiskSegments = Segment[];
    /** A query-language filter over the view's table, checked when the view was saved. */
    type QueryFilterJson = FilterJson;
  }
}
