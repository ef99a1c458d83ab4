import { appendFileSync, readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * Checks every REST response the test clients receive against the committed OpenAPI document
 * (rest/openapi.json), so a response whose shape the document does not show fails the test that
 * received it. Stricter than the published document in one way: objects with listed properties
 * get `additionalProperties: false` here, so a key the document does not name is drift too (the
 * published document leaves extra keys open, since callers tolerate them).
 *
 * With OPENAPI_MISMATCH_LOG=<file> mismatches are appended to that file instead of failing (to
 * survey a whole run at once).
 */
type Schema = Record<string, any>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: Schema }> }> };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOCUMENT_URL = new URL("../../rest/openapi.json", import.meta.url);
const BASE = "wire";

let state: { ajv: Ajv2020; paths: Array<{ template: string; pattern: RegExp; params: number; operations: Record<string, Operation> }> } | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Rewrites references to the document's components into the registered base schema. */
function rewrite(node: unknown, inBase: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, inBase));
  if (!node || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") out[key] = value.replace("#/components/schemas/", inBase ? "#/$defs/" : `${BASE}#/$defs/`);
    else out[key] = rewrite(value, inBase);
  }
  if (out.type === "object" && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function load() {
  if (state) return state;
  const document = JSON.parse(readFileSync(DOCUMENT_URL, "utf8")) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addFormat("int64", true);
  ajv.addFormat("binary", true);
  ajv.addSchema({ $id: BASE, $defs: rewrite(document.components.schemas, true) as Schema });
  const paths = Object.entries(document.paths).map(([template, operations]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{\w+\\\}/g, "[^/]+")}/?$`),
    params: (template.match(/\{/g) ?? []).length,
    operations,
  }));
  paths.sort((a, b) => a.params - b.params);
  state = { ajv, paths };
  return state;
}

/** One compiled validator per distinct schema (most operations share theirs: an entity, an async result, the error body). */
function validator(schema: Schema): ValidateFunction {
  const rewritten = rewrite(schema, false) as Schema;
  const key = JSON.stringify(rewritten);
  let validate = compiled.get(key);
  if (!validate) {
    validate = load().ajv.compile(rewritten);
    compiled.set(key, validate);
  }
  return validate;
}

const ERROR_BODY: Schema = { $ref: "#/components/schemas/ErrorBody" };

/** Problems of one response with the document, or [] when it conforms. */
export function responseProblems(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
  const { paths } = load();
  const bare = path.split("?")[0];
  const entry = paths.find((p) => p.pattern.test(bare) && p.operations[method.toLowerCase()]);
  const operation = entry?.operations[method.toLowerCase()];
  const where = `${method} ${bare} -> ${status}`;
  if (!operation) {
    // An unknown path or method answers with the error body; nothing else may answer.
    if (status < 400) return [`${where}: no operation of the document serves this path and method`];
    return check(ERROR_BODY, body, where);
  }
  const response = operation.responses[String(status)] ?? (status >= 400 ? operation.responses.default : undefined);
  if (!response) return [`${where}: status ${status} is not documented for ${entry!.template}`];
  if (!response.content) return body === undefined || body === "" ? [] : [`${where}: the document shows no body, the response has one`];
  const json = response.content["application/json"];
  if (!json) {
    const documented = Object.keys(response.content);
    const mediaType = (contentType ?? "").split(";")[0].trim();
    return documented.includes(mediaType) ? [] : [`${where}: content type ${mediaType} is not ${documented.join(", ")}`];
  }
  if (!(contentType ?? "").includes("application/json")) return [`${where}: the document shows a JSON body, the response is ${contentType ?? "without content type"}`];
  return check(json.schema, body, where);
}

function check(schema: Schema, body: unknown, where: string): string[] {
  const validate = validator(schema);
  if (validate(body)) return [];
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`);
  return [`${where}: the body does not match the OpenAPI document: ${errors.join("; ")}`];
}

/** Fails (throws) when a response does not match the document; see OPENAPI_MISMATCH_LOG above. */
export function assertDocumentedResponse(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
  const problems = responseProblems(method, path, status, contentType, body);
  if (problems.length === 0) return;
  const detail = `${problems.join("\n")}\nbody: ${JSON.stringify(body)?.slice(0, 1500)}`;
  const log = process.env.OPENAPI_MISMATCH_LOG;
  if (log) {
    appendFileSync(log, `${detail}\n---\n`);
    return;
  }
  throw new Error(`Response not described by rest/openapi.json (fix the server or the document generator, rest/openapi.ts):\n${detail}`);
}
