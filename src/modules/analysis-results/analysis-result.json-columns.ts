/**
 * The types of the analysis result's Json columns, named in `prisma/schema/analyses.prisma` and
 * written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { EngineSpec, ResultSummary } from "../../engine/index.js";
import type { periodsOf } from "../analyses/analysis.service.js";

declare global {
  namespace PrismaJson {
    /** The analysis periods as they were when the run started. */
    type AnalysisResultPeriods = ReturnType<typeof periodsOf>;
    /** What the run scores (stored without accounts: the job reads them again). */
    type AnalysisResultSpec = EngineSpec;
    type AnalysisResultSummary = ResultSummary;
  }
}
