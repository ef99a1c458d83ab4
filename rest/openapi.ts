import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isScalarType,
  isUnionType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from "graphql";
import type { CompiledRoute } from "./compile.js";
import { namedShapes, shapeOf } from "../src/modules/common/json-shape.js";

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: "string" },
  ID: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  DateTime: { type: "string", format: "date-time" },
  Date: { type: "string", format: "date" },
  ObjectId: { type: "string", pattern: "^[0-9a-f]{24}$" },
  JSON: {},
  Long: { type: "integer", format: "int64" },
  Upload: { type: "string", format: "binary" },
};

function isEntity(type: GraphQLNamedType): boolean {
  return type.name === "Entity" || ((isObjectType(type) || isInterfaceType(type)) && type.getInterfaces().some((i) => i.name === "Entity"));
}

/**
 * The OpenAPI 3.1 description of /api/v1, generated from the route table and the GraphQL types
 * the routes use, so the two can never disagree. Committed as rest/openapi.json.
 */
export function buildOpenApi(schema: GraphQLSchema, routes: CompiledRoute[]): JsonSchema {
  const components: Record<string, JsonSchema> = {};

  const ref = (type: GraphQLNamedType, input: boolean): JsonSchema => {
    if (isScalarType(type)) return SCALARS[type.name] ?? { type: "string" };
    if (isEnumType(type)) {
      if (!components[type.name]) components[type.name] = { type: "string", enum: type.getValues().map((v) => v.name) };
      return { $ref: `#/components/schemas/${type.name}` };
    }
    if (!components[type.name]) {
      components[type.name] = {};
      components[type.name] = input ? inputObject(type) : outputObject(type);
    }
    return { $ref: `#/components/schemas/${type.name}` };
  };

  const wrap = (type: GraphQLOutputType | GraphQLInputType, input: boolean): JsonSchema => {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return { type: "array", items: wrap(inner.ofType, input) };
    return ref(inner as GraphQLNamedType, input);
  };

  const inputObject = (type: GraphQLNamedType): JsonSchema => {
    if (!isInputObjectType(type)) return {};
    const fields = Object.values(type.getFields());
    return {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(fields.map((f) => [f.name, { ...(shapeOf(f.extensions) ?? wrap(f.type, true)), ...(f.description ? { description: f.description } : {}) }])),
      required: fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name),
    };
  };

  // REST bodies are the route's selection (rest/selection.ts): every field without required
  // arguments, links between entities left out, nulls omitted; so a non-null field is always there.
  const outputObject = (type: GraphQLNamedType): JsonSchema => {
    if (isUnionType(type) || isInterfaceType(type)) {
      return { anyOf: schema.getPossibleTypes(type).map((t) => ref(t, false)) };
    }
    if (!isObjectType(type)) return {};
    const parentIsEntity = isEntity(type);
    const fields = Object.values(type.getFields()).filter((f) => !f.args.some(isRequiredArgument) && f.extensions?.rest !== false && !(parentIsEntity && isEntity(getNamedType(f.type))));
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
    return {
      type: "object",
      properties: Object.fromEntries(
        fields.map((f) => [
          f.name,
          { ...(shapeOf(f.extensions) ?? wrap(f.type, false)), ...(f.deprecationReason ? { deprecated: true } : {}), ...(f.description ? { description: f.description } : {}) },
        ]),
      ),
      ...(required.length > 0 ? { required } : {}),
    };
  };

  // Every enumeration is published, also those only JSON shapes use (MetricState).
  for (const type of Object.values(schema.getTypeMap())) if (isEnumType(type) && !type.name.startsWith("__")) ref(type, false);
  for (const [name, shape] of namedShapes()) components[name] = shape;

  components.ErrorBody = {
    type: "object",
    description: "ActionableErrorResponse (wire reference section 3)",
    required: ["type", "title", "status", "instance", "origin", "problemCount", "problems"],
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer" },
      instance: { type: "string" },
      origin: { type: "string" },
      entityId: { type: "string" },
      entityType: { type: "string" },
      problemCount: { type: "integer" },
      problems: { type: "array", items: { $ref: "#/components/schemas/Problem" } },
    },
  };
  // ProblemType, Severity and Problem are GraphQL types (src/modules/common/problem.ts), published
  // with the other types; the error body refers to them.
  ref(schema.getType("Problem")!, false);
  components.Filter = { type: "object", description: "Query-language filter (spec 4.2); {} matches everything" };

  const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } });
  const paths: Record<string, Record<string, unknown>> = {};
  // Operation ids are unique (OpenAPI requires it); paths serving the same field (aliases,
  // deprecated paths, /x and /x/{id}) tell theirs apart by the path.
  const fieldRoutes = new Map<string, number>();
  for (const route of routes) fieldRoutes.set(`${route.method} ${route.def.field}`, (fieldRoutes.get(`${route.method} ${route.def.field}`) ?? 0) + 1);
  const operationId = (route: CompiledRoute) => {
    const base = `${route.method.toLowerCase()}_${route.def.field}`;
    if (fieldRoutes.get(`${route.method} ${route.def.field}`) === 1) return base;
    return `${base}__${route.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "")}`;
  };
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))) {
    const parameters: JsonSchema[] = [];
    let requestBody: JsonSchema | undefined;
    for (const variable of route.variables) {
      const source = variable.source;
      if (source.from === "path") parameters.push({ name: source.name, in: "path", required: true, schema: { type: "string" } });
      else if (source.from === "query") parameters.push({ name: source.name, in: "query", required: isNonNullType(variable.type), schema: wrap(variable.type, true) });
      else if (source.from === "body") {
        const named = getNamedType(variable.type);
        requestBody = {
          required: isNonNullType(variable.type),
          content: { "application/json": { schema: named.name === "JSON" ? { $ref: "#/components/schemas/Filter" } : wrap(variable.type, true) } },
        };
      }
    }
    // Action routes taking single keys of the body ({engagementId}, {chunkedFileId}): exactly those keys.
    const bodyKeys = route.variables.filter((v) => v.source.from === "bodyKey");
    if (bodyKeys.length > 0 && !requestBody) {
      const required = bodyKeys.filter((v) => isNonNullType(v.type)).map((v) => (v.source as { name: string }).name);
      requestBody = {
        required: required.length > 0,
        content: {
          "application/json": {
            schema: {
              type: "object",
              additionalProperties: false,
              properties: Object.fromEntries(bodyKeys.map((v) => [(v.source as { name: string }).name, wrap(v.type, true)])),
              ...(required.length > 0 ? { required } : {}),
            },
          },
        },
      };
    }
    const upload = route.def.upload;
    if (upload) {
      const properties: Record<string, JsonSchema> = {};
      const encoding: Record<string, JsonSchema> = {};
      for (const variable of route.variables) {
        if (variable.source.from !== "part") continue;
        properties[variable.source.name] = wrap(variable.type, true);
        encoding[variable.source.name] = { contentType: "application/json" };
      }
      properties[upload.filePart] = { type: "string", format: "binary", description: "The file's bytes (a part with a filename)" };
      requestBody = {
        required: true,
        content: { "multipart/form-data": { schema: { type: "object", required: [...upload.jsonParts, upload.filePart], properties }, encoding } },
      };
    }
    if (route.def.bodyFile) requestBody = { required: true, content: { "application/json": { schema: route.def.bodyFile.schema } } };
    // Actions without arguments in the body (POST /analyses/{id}/run, exports) take `{}` or nothing.
    if (!requestBody && (route.method === "POST" || route.method === "PUT")) {
      requestBody = { required: false, content: { "application/json": { schema: { type: "object", additionalProperties: false, properties: {} } } } };
    }
    const success = route.def.download
      ? {
          description: "The file's bytes",
          headers: { "Content-Disposition": { schema: { type: "string" }, description: "attachment; filename=\"<fileName>\"" } },
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        }
      : route.status === 204
        ? { description: "Done; no body" }
        : { description: "Success", content: { "application/json": { schema: wrap(route.field.type, false) } } };
    const operation = {
      operationId: operationId(route),
      summary: route.def.summary,
      tags: [route.def.tag],
      ...(route.def.deprecated ? { deprecated: true } : {}),
      "x-permission": route.permission,
      ...(route.acceptedPermissions.length > 1 ? { "x-permission-alternatives": route.acceptedPermissions.slice(1) } : {}),
      "x-graphql-field": `${route.def.operation}.${route.def.field}`,
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        [String(route.status)]: success,
        "400": errorResponse("Invalid request (bad JSON, unknown property, wrong type, invalid filter)"),
        "401": errorResponse("Missing, unknown or expired token, or address not allowed"),
        "403": errorResponse(`The token lacks ${route.acceptedPermissions.join(" or ")}`),
        "404": errorResponse("Unknown id or path"),
        ...(route.method === "PUT" || route.method === "DELETE" ? { "409": errorResponse("Version mismatch or state conflict") } : {}),
        ...(upload ? { "413": errorResponse("The file is larger than the limit") } : route.def.bodyFile ? { "413": errorResponse("The body is larger than the limit") } : {}),
        "429": errorResponse("Rate limit exceeded"),
        default: errorResponse("Any other failure (405, 409, 423, 500, 503, ...): the same error body"),
      },
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }

  const sortedComponents = Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: "3.1.0",
    info: { title: "Financial analytics platform API", version: "1.8.6", description: "REST endpoints under /api/v1; each runs a GraphQL operation of /api/graphql in-process." },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: sortedComponents, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}
