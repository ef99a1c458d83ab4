import {
  GraphQLObjectType,
  getNamedType,
  isAbstractType,
  getNullableType,
  isInputObjectType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from "graphql";
import type { ArgSource, HttpMethod, RouteDef } from "./route-helpers.js";
import { selectionFor } from "./selection.js";
import { acceptedPermissions, type PermissionScope } from "../src/auth/permissions.js";

export interface CompiledVariable {
  name: string;
  type: GraphQLInputType;
  source: ArgSource;
  /** Read model matching an input object (for ignoring read-only keys); the field's return type. */
  readType?: GraphQLNamedType;
}

export interface CompiledRoute {
  def: RouteDef;
  method: HttpMethod;
  path: string;
  pattern: RegExp;
  pathParams: string[];
  document: DocumentNode;
  field: GraphQLField<unknown, unknown>;
  /** Permission the root field declares (or "authenticated"), for the docs and OpenAPI. */
  permission: string;
  /** Permissions any one of which lets a token in: `permission` and older names still honoured. */
  acceptedPermissions: string[];
  variables: CompiledVariable[];
  status: number;
}

const mergedReadModels = new WeakMap<GraphQLNamedType, GraphQLObjectType>();

/**
 * The read model an input is checked against (keys it has but the input lacks are read-only and
 * dropped). For an interface or union result (a file manager entry is a file or a directory) that
 * is every field of every possible type, so any read body is accepted back as an update body.
 */
function readModelOf(schema: GraphQLSchema, type: GraphQLNamedType): GraphQLNamedType {
  if (!isAbstractType(type)) return type;
  let merged = mergedReadModels.get(type);
  if (!merged) {
    const fields = Object.assign({}, ...schema.getPossibleTypes(type).map((possible) => possible.toConfig().fields));
    merged = new GraphQLObjectType({ name: `${type.name}ReadModel`, fields });
    mergedReadModels.set(type, merged);
  }
  return merged;
}

function permissionOf(field: GraphQLField<unknown, unknown>): { permission: string; acceptedPermissions: string[] } {
  const scopes = (field.extensions?.pothosOptions as { authScopes?: Record<string, unknown> } | undefined)?.authScopes;
  if (scopes && (typeof scopes.permission === "string" || Array.isArray(scopes.permission))) {
    const accepted = [...acceptedPermissions(scopes.permission as PermissionScope)];
    return { permission: accepted[0], acceptedPermissions: accepted };
  }
  if (scopes?.authenticated) return { permission: "authenticated", acceptedPermissions: ["authenticated"] };
  throw new Error(`Root field ${field.name} declares no permission; every REST route needs one`);
}

/**
 * Turns a route entry into an executable unit once, at start-up: the GraphQL document (parsed and
 * validated against the schema), the variable plan and the path matcher. A route that does not
 * fit the schema stops the server from starting rather than failing at request time.
 */
export function compileRoute(schema: GraphQLSchema, def: RouteDef): CompiledRoute {
  const root = def.operation === "query" ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[def.field];
  if (!field) throw new Error(`Route ${def.method} ${def.path}: ${def.operation} field ${def.field} does not exist`);
  const pathParams = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const sources: Record<string, ArgSource> = { ...def.args };
  for (const arg of field.args) if (!sources[arg.name] && pathParams.includes(arg.name)) sources[arg.name] = { from: "path", name: arg.name };
  const readModelType = def.readModel ? schema.getType(def.readModel) : getNamedType(field.type);
  if (!readModelType) throw new Error(`Route ${def.method} ${def.path}: read model ${def.readModel} is not a type of the schema`);
  const variables: CompiledVariable[] = [];
  for (const arg of field.args) {
    const source = sources[arg.name];
    if (!source) {
      if (getNullableType(arg.type) !== arg.type) throw new Error(`Route ${def.method} ${def.path}: required argument ${arg.name} of ${def.field} has no source`);
      continue;
    }
    const readType = isInputObjectType(getNamedType(arg.type)) ? readModelOf(schema, readModelType) : undefined;
    variables.push({ name: arg.name, type: arg.type, source, readType });
  }
  for (const name of Object.keys(sources)) {
    if (!field.args.some((a) => a.name === name)) throw new Error(`Route ${def.method} ${def.path}: ${def.field} has no argument ${name}`);
  }
  const operationName = `${def.method}_${def.path.replace(/[^A-Za-z0-9]+/g, "_")}`;
  const varDefs = variables.map((v) => `$${v.name}: ${String(v.type)}`).join(", ");
  const args = variables.map((v) => `${v.name}: $${v.name}`).join(", ");
  const text = `${def.operation} ${operationName}${varDefs ? `(${varDefs})` : ""} { ${def.field}${args ? `(${args})` : ""} ${selectionFor(schema, getNamedType(field.type))} }`;
  const document = parse(text);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`Route ${def.method} ${def.path}: generated document is invalid: ${errors.map((e) => e.message).join("; ")}`);
  const pattern = new RegExp(`^${def.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{(\w+)\\\}/g, "([^/]+)")}/?$`);
  return { def, method: def.method, path: def.path, pattern, pathParams, document, field, ...permissionOf(field), variables, status: def.status ?? 200 };
}

/**
 * Compiled routes per schema and route entry: a process that starts several servers on the one
 * schema (the tests do) compiles and validates each route document once, not at every start.
 */
const compiled = new WeakMap<GraphQLSchema, WeakMap<RouteDef, CompiledRoute>>();

function compiledRoute(schema: GraphQLSchema, def: RouteDef): CompiledRoute {
  let bySchema = compiled.get(schema);
  if (!bySchema) compiled.set(schema, (bySchema = new WeakMap()));
  let route = bySchema.get(def);
  if (!route) bySchema.set(def, (route = compileRoute(schema, def)));
  return route;
}

/** Routes ordered so literal segments win over parameters (/users/current before /users/{userId}). */
export function compileRoutes(schema: GraphQLSchema, defs: RouteDef[]): CompiledRoute[] {
  const seen = new Set<string>();
  for (const def of defs) {
    const key = `${def.method} ${def.path}`;
    if (seen.has(key)) throw new Error(`Route ${key} is defined twice`);
    seen.add(key);
  }
  return defs.map((def) => compiledRoute(schema, def)).sort((a, b) => a.pathParams.length - b.pathParams.length);
}
