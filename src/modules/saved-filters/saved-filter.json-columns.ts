/**
 * The types of `saved_filter.condition` and `population.condition`, named in
 * `prisma/schema/saved-filters.prisma` and written into the generated client by
 * prisma-json-types-generator. A condition is checked (conditionProblems) before it is stored.
 * `name` and `category` are `LocalizedText` (account-groupings declares it).
 */
import type { Condition } from "./conditions/condition-check.js";

declare global {
  namespace PrismaJson {
    type FilterCondition = Condition;
  }
}
