import { GraphQLNonNull, type GraphQLInputType } from "graphql";
import { describe, expect, it } from "vitest";
import type { Problem } from "../src/core/errors.js";
import { tinySchema } from "../test/helpers/tiny-schema.js";
import { coercionProblems, normalizeInput, throwIfProblems } from "./input-normalize.js";

const schema = tinySchema();
const input = schema.getType("EngagementInput") as GraphQLInputType;
const readModel = schema.getType("Engagement")!;

function normalize(value: unknown) {
  const problems: Problem[] = [];
  const out = normalizeInput(value, new GraphQLNonNull(input as never), readModel, "", problems);
  return { out, problems };
}

describe("normalizeInput (spec 2.1 rules 1-3)", () => {
  it("keeps the input's keys, nested objects and lists included", () => {
    const body = { name: "FY25", organizationId: "abc", period: { startDate: "2025-01-01" }, tags: ["a", "b"] };
    expect(normalize(body)).toEqual({ out: body, problems: [] });
  });

  it("drops keys of the read model that the input lacks (read-only), at every depth they exist in both", () => {
    const { out, problems } = normalize({ name: "FY25", id: "x", version: 3, organization: { id: "o" } });
    expect(out).toEqual({ name: "FY25" });
    expect(problems).toEqual([]);
  });

  it("reports a key in neither model by its path, with the accepted keys as suggestions", () => {
    const { problems } = normalize({ name: "FY25", colour: "red", period: { startDate: "2025-01-01", weekday: 3 } });
    expect(problems.map((p) => [p.identifier, p.problemType])).toEqual([
      ["colour", "ILLEGAL_ARGUMENT"],
      ["period.weekday", "ILLEGAL_ARGUMENT"],
    ]);
    expect(problems[0].suggestedValues).toEqual(["name", "organizationId", "period", "tags"]);
    expect(problems[1].suggestedValues).toEqual(["startDate", "endDate"]);
  });

  it("passes values of the wrong shape on untouched, for coercion to report", () => {
    expect(normalize("not an object").out).toBe("not an object");
    expect(normalize(null).out).toBeNull();
    expect(normalize({ name: "x", tags: "solo" }).out).toEqual({ name: "x", tags: "solo" });
  });
});

describe("coercionProblems", () => {
  const type = new GraphQLNonNull(input as never) as GraphQLInputType;

  it("is empty for a value GraphQL accepts", () => {
    expect(coercionProblems({ name: "x", tags: ["a"] }, type, "input", true)).toEqual([]);
  });

  it("names a missing required field itself, nested ones by their path", () => {
    const problems = coercionProblems({ period: {} }, type, "input", true);
    expect(problems.map((p) => [p.identifier, p.problemType])).toEqual([
      ["name", "ILLEGAL_ARGUMENT"],
      ["period.startDate", "ILLEGAL_ARGUMENT"],
    ]);
    expect(problems[0].reason).toBe("name is required (String!)");
  });

  it("names a value of the wrong type by its path, with the value", () => {
    const [problem] = coercionProblems({ name: 5, tags: ["a"] }, type, "input", true);
    expect(problem).toMatchObject({ identifier: "name", problemType: "INCORRECT_DATA_TYPE", values: ["5"] });
    const [item] = coercionProblems({ name: "x", tags: ["a", 7] }, type, "input", true);
    expect(item.identifier).toBe("tags[1]");
  });

  it("names the body, or the variable, when the value itself is wrong", () => {
    expect(coercionProblems("text", type, "input", true)[0].identifier).toBe("body");
    expect(coercionProblems("text", type, "input", false)[0].identifier).toBe("input");
  });

  it("throwIfProblems throws a 400 carrying every problem, and nothing without problems", () => {
    expect(() => throwIfProblems([])).not.toThrow();
    const problems = coercionProblems({}, type, "input", true);
    expect(() => throwIfProblems(problems)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ status: 400, problems }) }));
  });
});
