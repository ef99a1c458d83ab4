/**
 * The type of `library.conversion_warnings`, named in `prisma/schema/libraries.prisma` and written
 * into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { Problem } from "../../core/errors.js";

declare global {
  namespace PrismaJson {
    /** Problem objects, as in the error body's problems (wire reference 8). */
    type LibraryConversionWarnings = Problem[];
  }
}
