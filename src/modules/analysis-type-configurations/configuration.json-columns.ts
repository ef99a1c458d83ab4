/**
 * The type of `analysis_type_configuration.configuration`, named in
 * `prisma/schema/analysis-type-configurations.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { Configuration } from "../catalogue/control-points.data.js";

declare global {
  namespace PrismaJson {
    type AnalysisTypeConfigurationValue = Configuration;
  }
}
