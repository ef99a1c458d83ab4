/**
 * The types of the catalogue's Json columns (seeded by migration from the data files beside this
 * one), named in `prisma/schema/catalogue.prisma` and written into the generated client by
 * prisma-json-types-generator: reads are typed.
 */
import type { ColumnDefinition } from "./analysis-source-types.data.js";
import type { SourceConfiguration } from "./analysis-types.data.js";

declare global {
  namespace PrismaJson {
    type AnalysisTypeSourceConfigurations = SourceConfiguration[];
    type AnalysisSourceTypeColumnDefinitions = ColumnDefinition[];
  }
}
