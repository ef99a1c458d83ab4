import { print, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { tinySchema } from "../test/helpers/tiny-schema.js";
import { selectionFor } from "./selection.js";

const schema = tinySchema();
const normalised = (selection: string) => print(parse(`{ x ${selection} }`));

describe("selectionFor (the read model a REST route returns)", () => {
  it("selects every field of an entity, nested objects included, and leaves out links to other entities", () => {
    expect(normalised(selectionFor(schema, schema.getType("Engagement")!))).toBe(normalised("{ id version name organizationId period { startDate endDate } }"));
  });

  it("leaves out fields that need arguments and lists of other entities", () => {
    const selection = selectionFor(schema, schema.getType("Organization")!);
    expect(selection).not.toContain("engagementCount");
    expect(selection).not.toContain("engagements");
    expect(selection).toContain("createdUserInfo{ userId userName }");
  });

  it("selects each possible type of a union by fragment, with __typename", () => {
    expect(normalised(selectionFor(schema, schema.getType("Entry")!))).toBe(normalised("{ __typename ... on Directory { id version name } ... on File { id version name size } }"));
  });

  it("selects nothing below a scalar", () => {
    expect(selectionFor(schema, schema.getType("String")!)).toBe("");
  });
});
