import { GraphQLError, GraphQLID, Kind, type DocumentNode, type TypeNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { ValidationError } from "../core/errors.js";

/**
 * Ids are keys to look up, and PostgreSQL text cannot hold NUL: `GET /organizations/abc%00def`
 * answered 500. An id with a control character is refused as a 400 naming the argument, in REST
 * (path parameters are coerced as GraphQL variables) and GraphQL alike.
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

function refusal(id: string): string | undefined {
  return CONTROL_CHARACTER.test(id) ? `expects an id without control characters (such as NUL); got ${JSON.stringify(id)}` : undefined;
}

/**
 * Pothos always builds the schema with graphql-js's own ID scalar (a custom one named ID is
 * ignored), so its coercion is tightened in place, once: input coercion (REST variables,
 * graphql-js execution, graphql-ws) and literals (`organization(id: "...")`) go through it.
 */
const builtInParseValue = GraphQLID.parseValue.bind(GraphQLID);
const builtInParseLiteral = GraphQLID.parseLiteral.bind(GraphQLID);
Object.assign(GraphQLID, {
  parseValue(value: unknown) {
    const id = builtInParseValue(value) as string;
    const reason = refusal(id);
    if (reason) throw new GraphQLError(reason);
    return id;
  },
  parseLiteral(...args: Parameters<typeof GraphQLID.parseLiteral>) {
    const id = builtInParseLiteral(...args) as string;
    const reason = refusal(id);
    if (reason) throw new GraphQLError(reason);
    return id;
  },
});

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}

/** The first variable of type ID (or a list of IDs) holding a refused id. */
function refusedVariable(document: DocumentNode, variables: Record<string, unknown> | null | undefined): { name: string; reason: string } | undefined {
  if (!variables) return undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      if (namedType(variable.type) !== "ID") continue;
      const name = variable.variable.name.value;
      const value = variables[name];
      for (const item of Array.isArray(value) ? value : [value]) {
        const reason = typeof item === "string" ? refusal(item) : undefined;
        if (reason) return { name, reason };
      }
    }
  }
  return undefined;
}

/**
 * graphql-jit inlines its own ID variable coercion (without calling the scalar), so variables
 * are checked here as well before execution.
 */
export function useIdArguments(): Plugin {
  return {
    onExecute({ args }) {
      const refused = refusedVariable(args.document, args.variableValues as Record<string, unknown> | undefined);
      if (refused) throw new ValidationError(`Variable "$${refused.name}" ${refused.reason}`, { identifier: refused.name, problemType: "INCORRECT_DATA_TYPE" });
    },
    onSubscribe({ args }) {
      const refused = refusedVariable(args.document, args.variableValues as Record<string, unknown> | undefined);
      if (refused) throw new ValidationError(`Variable "$${refused.name}" ${refused.reason}`, { identifier: refused.name, problemType: "INCORRECT_DATA_TYPE" });
    },
  };
}
