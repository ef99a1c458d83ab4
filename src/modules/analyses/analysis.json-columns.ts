/**
 * The type of `analysis.important_columns`, named in `prisma/schema/analyses.prisma` and written
 * into the generated client by prisma-json-types-generator.
 */
declare global {
  namespace PrismaJson {
    type AnalysisImportantColumns = Array<{ columnName: string; field: string }>;
  }
}

export {};
