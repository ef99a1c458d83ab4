import { GraphQLError, Kind } from "graphql";
import { builder } from "../../graphql/builder.js";
import { isObjectId } from "../../core/ids.js";
import { noteExactInteger } from "../../core/exact-integers.js";

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

/** ISO-8601 UTC with `Z` on output; input needs an explicit zone (zone-less values are ambiguous). */
builder.scalarType("DateTime", {
  description: "ISO-8601 date-time, e.g. 2025-06-30T14:05:09.123Z",
  serialize: (value) => toDate(value).toISOString(),
  parseValue: (value) => {
    if (typeof value !== "string" || !DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError(`expects an ISO-8601 date-time with a zone, e.g. 2025-06-30T14:05:09Z; got ${JSON.stringify(value)}`);
    }
    return new Date(value);
  },
});

builder.scalarType("Date", {
  description: "Calendar date YYYY-MM-DD",
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10)),
  parseValue: (value) => {
    if (typeof value !== "string" || !DATE.test(value) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
      throw new GraphQLError(`expects a date YYYY-MM-DD; got ${JSON.stringify(value)}`);
    }
    return value;
  },
});

/**
 * A file of a GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec):
 * the client sends null for the variable in `operations` and maps a file part to it, as
 * apollo-upload-client and other standard clients do for variables typed `Upload`. The HTTP layer
 * streams the part into storage first and hands the resolver the id of those staged bytes (the
 * value this scalar parses); a value that names no part of the same request is refused by the
 * mutation.
 */
builder.scalarType("Upload", {
  description: "A file part of this multipart request (GraphQL multipart request convention: null in operations, the part mapped to the variable)",
  serialize: () => {
    throw new GraphQLError("Upload is an input type only");
  },
  parseValue: (value) => {
    if (typeof value !== "string" || value.length === 0) throw new GraphQLError("expects a file part of this multipart request mapped to this variable (GraphQL multipart request convention)");
    return value;
  },
});

builder.scalarType("ObjectId", {
  description: "24 lower-case hexadecimal characters",
  serialize: (value) => value,
  parseValue: (value) => {
    if (!isObjectId(value)) throw new GraphQLError(`expects an id of 24 lower-case hexadecimal characters; got ${JSON.stringify(value)}`);
    return value;
  },
});

function literalToJson(ast: import("graphql").ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST: {
      const list = ast.values.map((v) => literalToJson(v, variables));
      ast.values.forEach((v, index) => noteIfInexact(list, index, v));
      return list;
    }
    case Kind.OBJECT: {
      const object = Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value, variables)]));
      for (const f of ast.fields) noteIfInexact(object, f.name.value, f.value);
      return object;
    }
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      return undefined;
  }
}

/** Keeps the digits of an integer literal a JS number rounds, for the query language (INT64, MONEY_100). */
function noteIfInexact(parent: object, key: string | number, ast: import("graphql").ValueNode): void {
  if (ast.kind === Kind.INT && !Number.isSafeInteger(Number(ast.value))) noteExactInteger(parent, key, ast.value);
}

builder.scalarType("JSON", {
  description: "Any JSON value (filters of the query language, free-form settings)",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => literalToJson(ast, variables),
});
