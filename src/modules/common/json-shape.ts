/**
 * Wire shapes GraphQL cannot state: maps (`{lang: text}`, `{controlPoint: weight}`, histograms),
 * free-form JSON with a known structure, and enumerations whose values are not GraphQL names
 * (permissions contain dots). A field declares its shape with `...shaped(schema)` in its options;
 * the OpenAPI document (rest/openapi.ts) publishes that JSON Schema instead of the GraphQL type, so
 * the document says exactly what REST sends, and the test client validates every response against
 * it (test/helpers/openapi-validator.ts).
 */
export type JsonSchema = Record<string, unknown>;

const named = new Map<string, JsonSchema>();

/** Registers a shape as a component of the OpenAPI document and returns a reference to it. */
export function namedShape(name: string, schema: JsonSchema): JsonSchema {
  const known = named.get(name);
  if (known && JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`JSON shape ${name} is defined twice, differently`);
  named.set(name, schema);
  return ref(name);
}

/** A reference to a component: a named shape or a GraphQL type of the same name. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

export function namedShapes(): ReadonlyMap<string, JsonSchema> {
  return named;
}

/** Field options declaring the field's wire shape (spread into a Pothos field's options). */
export function shaped(schema: JsonSchema): { extensions: { jsonSchema: JsonSchema } } {
  return { extensions: { jsonSchema: schema } };
}

/** The declared shape of a GraphQL field or input field, if any. */
export function shapeOf(extensions: Readonly<Record<string, unknown>> | null | undefined): JsonSchema | undefined {
  return extensions?.jsonSchema as JsonSchema | undefined;
}

export const mapOf = (values: JsonSchema, description?: string): JsonSchema => ({ type: "object", additionalProperties: values, ...(description ? { description } : {}) });
export const listOf = (items: JsonSchema): JsonSchema => ({ type: "array", items });
export const objectOf = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties), description?: string): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(description ? { description } : {}),
});

export const STRING: JsonSchema = { type: "string" };
export const INTEGER: JsonSchema = { type: "integer" };
export const NUMBER: JsonSchema = { type: "number" };
export const BOOLEAN: JsonSchema = { type: "boolean" };
export const OBJECT_ID: JsonSchema = { type: "string", pattern: "^[0-9a-f]{24}$" };

/** `{language code: text}` (wire reference: `{lang}`). */
export const LOCALIZED_TEXT = namedShape("LocalizedText", mapOf(STRING, "Language code -> text"));
