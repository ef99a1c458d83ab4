/**
 * The types of `library.conversion_warnings` and `library.risk_score_display`, named in `prisma/schema/libraries.prisma` and written
 * into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { Problem } from "../../core/errors.js";
import type { RISK_SCORE_DISPLAYS } from "./library.columns.js";

declare global {
  namespace PrismaJson {
    /** Problem objects, as in the error body's problems (wire reference 8). */
    type LibraryConversionWarnings = Problem[];
    /** How risk scores show (wire reference 7). */
    type RiskScoreDisplay = (typeof RISK_SCORE_DISPLAYS)[number];
  }
}
