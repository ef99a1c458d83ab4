import { GraphQLError } from "graphql";
import { ValidationError } from "../core/errors.js";
import { parseJsonBody } from "../core/json-body.js";

/** What a GraphQL request asks for, from a JSON body or a GET query string. */
export interface GraphqlParams {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** An error about the request itself, shaped as Yoga raises them (its code and HTTP status; `spec`: 200 for `application/json` clients). */
export function requestError(message: string, code: string, http: { status: number; spec?: boolean; headers?: Record<string, string> }): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http } });
}

/** A typed error's problem, raised while reading the request (Yoga takes the HTTP status from extensions.http). */
function fromValidation(error: unknown, message = (error as Error).message): never {
  if (!(error instanceof ValidationError)) throw error;
  throw new GraphQLError(message, { extensions: { ...error.extensions, http: { status: 400 } } });
}

/** The JSON media types a GraphQL POST body may have (the first of a list, without parameters, any case). */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(",")[0].split(";")[0].trim().toLowerCase();
  return type === "application/json" || type === "application/graphql+json";
}

/**
 * A JSON POST body, parsed by the REST layer's parser (core/json-body.ts) rather than JSON.parse:
 * keys must be unique within an object (spec 4.2 rule 2; JSON.parse would keep the last of two
 * equal keys of a filter variable without a word), and integer literals beyond 2^53 keep their
 * digits for the query language. An array (a batch) is returned as such: batching is refused later.
 */
export function paramsFromJson(text: string): GraphqlParams | GraphqlParams[] {
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch (error) {
    fromValidation(error);
  }
  if (typeof body !== "object" || body === null) {
    fromValidation(new ValidationError("POST body must be a JSON object", { identifier: "body" }), `POST body is expected to be object but received ${body === null ? "null" : typeof body}`);
  }
  return body as GraphqlParams | GraphqlParams[];
}

/** A GET query string (`query`, `operationName`, and `variables` / `extensions` as JSON, read like a body). */
export function paramsFromSearch(search: string): GraphqlParams {
  const values = new URLSearchParams(search);
  const json = (name: string) => {
    const text = values.get(name);
    if (!text) return undefined;
    try {
      return parseJsonBody(text, name);
    } catch (error) {
      fromValidation(error);
    }
  };
  return { query: values.get("query") || undefined, operationName: values.get("operationName") || undefined, variables: json("variables"), extensions: json("extensions") };
}

/** Sets `value` at a dotted path of the GraphQL multipart request spec (`variables.file`, `variables.files.0`). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let current = target;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === "__proto__" || key === "constructor" || key === "prototype") return;
    if (i === keys.length - 1) {
      current[key] = value;
      return;
    }
    const next = current[key];
    if (!Object.hasOwn(current, key) || typeof next !== "object" || next === null) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
}

/**
 * A multipart/form-data request (GraphQL multipart request spec): the `operations` and `map` fields
 * read by the same JSON parser as bodies (unique keys, exact integers; Yoga's own reader uses
 * JSON.parse), then each mapped file set at its paths, as Yoga does.
 */
export function paramsFromMultipart(form: FormData): GraphqlParams | GraphqlParams[] {
  const field = (name: string): string | undefined => {
    const value = form.get(name);
    if (value == null) return undefined;
    if (typeof value !== "string") throw requestError(`Multipart form field "${name}" must be a string`, "BAD_REQUEST", { status: 400 });
    return value;
  };
  const json = (name: string, text: string): unknown => {
    try {
      return parseJsonBody(text, name);
    } catch (error) {
      fromValidation(error);
    }
  };
  const operationsText = field("operations");
  if (operationsText === undefined) throw requestError('Missing multipart form field "operations"', "BAD_REQUEST", { status: 400 });
  const operations = json("operations", operationsText);
  if (typeof operations !== "object" || operations === null) {
    fromValidation(new ValidationError("operations must be a JSON object", { identifier: "operations" }));
  }
  const mapText = field("map");
  if (mapText !== undefined) {
    const map = json("map", mapText);
    if (typeof map !== "object" || map === null || Array.isArray(map)) fromValidation(new ValidationError("map must be a JSON object", { identifier: "map" }));
    for (const [name, paths] of Object.entries(map as Record<string, unknown>)) {
      if (!Array.isArray(paths) || !paths.every((path) => typeof path === "string")) {
        fromValidation(new ValidationError(`map.${name} must be a list of paths`, { identifier: `map.${name}` }));
      }
      const file = form.get(name);
      for (const path of paths as string[]) setPath(operations as Record<string, unknown>, path, file);
    }
  }
  return operations as GraphqlParams | GraphqlParams[];
}

const PARAMS = new Set(["query", "variables", "operationName", "extensions"]);
const ALLOW = { Allow: "GET, POST" };

function typeName(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Yoga's checks of the parameters, with its messages (its checkGraphQLQueryParams and batching limit are not exported). */
export function checkParams(params: GraphqlParams | GraphqlParams[]): asserts params is GraphqlParams & { query: string } {
  if (Array.isArray(params)) throw requestError("Batching is not supported.", "BAD_REQUEST", { status: 400 });
  for (const key in params) {
    if (params[key as keyof GraphqlParams] != null && !PARAMS.has(key)) throw requestError(`Unexpected parameter "${key}" in the request body.`, "BAD_REQUEST", { status: 400 });
  }
  if (params.query == null) throw requestError("Must provide query string.", "BAD_REQUEST", { status: 400, spec: true, headers: ALLOW });
  if (typeof params.query !== "string") throw requestError(`Expected "query" param to be a string, but given ${typeName(params.query)}.`, "BAD_REQUEST", { status: 400, headers: ALLOW });
  for (const key of ["variables", "extensions"] as const) {
    const type = typeName(params[key]);
    if (type !== "object" && type !== "null" && type !== "undefined") {
      throw requestError(`Expected "${key}" param to be empty or an object, but given ${type}.`, "BAD_REQUEST", { status: 400, headers: ALLOW });
    }
  }
}
