import { builder } from "../../graphql/builder.js";
import { PROBLEM_TYPES, SEVERITIES, type Problem as ProblemModel } from "../../core/errors.js";

export const ProblemTypeEnum = builder.enumType("ProblemType", { description: "Wire reference section 3", values: PROBLEM_TYPES });
export const SeverityEnum = builder.enumType("Severity", { values: SEVERITIES });

/**
 * A problem object, as in the error body's `problems[]` (wire reference 3); read models that
 * report problems (library conversion warnings) use the same shape.
 */
export const Problem = builder.objectRef<ProblemModel>("Problem").implement({
  fields: (t) => ({
    problemType: t.field({ type: ProblemTypeEnum, resolve: (p) => p.problemType }),
    severity: t.field({ type: SeverityEnum, resolve: (p) => p.severity }),
    identifier: t.exposeString("identifier", { nullable: true, description: "The field at fault" }),
    reason: t.exposeString("reason"),
    values: t.exposeStringList("values", { nullable: true, description: "The offending values" }),
    suggestedValues: t.exposeStringList("suggestedValues", { nullable: true }),
    entityId: t.exposeID("entityId", { nullable: true }),
    entityType: t.exposeString("entityType", { nullable: true }),
    problemCount: t.exposeInt("problemCount", { nullable: true, description: "Occurrences" }),
  }),
});
