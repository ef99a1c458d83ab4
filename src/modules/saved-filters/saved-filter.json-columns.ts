/**
 * The types of `saved_filter.condition` and `population.condition`, named in
 * `prisma/schema/saved-filters.prisma` and written into the generated client by
 * prisma-json-types-generator. A condition is checked (conditionProblems) before it is stored.
 * `name` and `category` are `LocalizedText` (account-groupings declares it).
 */
import type { Condition } from "./conditions/condition-check.js";
import type { FILTER_DATA_TYPES, FILTER_TYPES } from "./saved-filter.columns.js";

declare global {
  namespace PrismaJson {
    type FilterCondition = Condition;
    /** saved_filter.filter_type. */
    type FilterType = (typeof FILTER_TYPES)[number];
    /** saved_filter.data_type. */
    type FilterDataType = (typeof FILTER_DATA_TYPES)[number];
  }
}
