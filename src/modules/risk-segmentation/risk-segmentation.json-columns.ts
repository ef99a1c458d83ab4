/**
 * The type of `risk_segmentation_config.segments`, named in `prisma/schema/saved-filters.prisma` and
 * written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { Segment } from "./risk-segmentation.service.js";

declare global {
  namespace PrismaJson {
    type RiskSegments = Segment[];
  }
}
