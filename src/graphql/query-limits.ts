import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationRule,
} from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Limits on what one GraphQL document may ask for. Relations make the graph cyclic
 * (organization -> engagements -> organization -> ...), and each list of entities multiplies the
 * result: a document nesting them freely grew a response past gigabytes and blocked the server.
 * Introspection fields (`__schema`, `__type`) are not counted, so GraphiQL and code generators work.
 */
export const QUERY_LIMITS = {
  /** Nesting of fields. */
  depth: 15,
  /** Lists of entities inside one another (a page's `content` counts as one). */
  entityLists: 3,
  /** Aliased fields in the whole document (each alias re-runs its field). */
  aliases: 30,
  /** Brackets (`{`, `[`, `(`) open at once in the document's text: GraphQL's parser recurses. */
  nesting: 128,
};

/**
 * The deepest bracket nesting of a GraphQL document's text, outside strings and comments. The
 * parser (and every rule after it) recurses per level, and a list literal of 20,000 nested
 * brackets overflowed the stack (a 500); measured on the text, such a document costs one scan.
 */
export function documentNesting(text: string): number {
  let depth = 0;
  let most = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        i = end < 0 ? text.length : end + 2;
      } else {
        for (i++; i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a; i++) if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > most) most = depth;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return most;
}

function assertDocumentNesting(source: unknown): void {
  const text = typeof source === "string" ? source : (source as { body?: unknown })?.body;
  if (typeof text !== "string") return;
  const nesting = documentNesting(text);
  if (nesting > QUERY_LIMITS.nesting) {
    throw new GraphQLError(`Syntax Error: the document nests brackets ${nesting} deep; at most ${QUERY_LIMITS.nesting} are allowed`, { extensions: { code: "GRAPHQL_PARSE_FAILED", http: { status: 400 } } });
  }
}

function isEntity(type: GraphQLNamedType): boolean {
  return (isObjectType(type) || isInterfaceType(type)) && (type.name === "Entity" || type.getInterfaces().some((i) => i.name === "Entity"));
}

/** The deepest nesting of fields and of entity lists under a selection set. */
function measure(
  schema: GraphQLSchema,
  type: GraphQLNamedType | undefined,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  visiting: Set<string>,
): { depth: number; entityLists: number } {
  let most = { depth: 0, entityLists: 0 };
  if (!selectionSet) return most;
  const keep = (found: { depth: number; entityLists: number }) => {
    most = { depth: Math.max(most.depth, found.depth), entityLists: Math.max(most.entityLists, found.entityLists) };
  };
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith("__")) continue;
      const field = type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[selection.name.value] : undefined;
      const fieldType = field ? getNamedType(field.type) : undefined;
      const entityList = Boolean(field && fieldType && isListType(getNullableType(field.type)) && isEntity(fieldType));
      const below = measure(schema, fieldType, selection.selectionSet, fragments, visiting);
      keep({ depth: below.depth + 1, entityLists: below.entityLists + (entityList ? 1 : 0) });
    } else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : undefined;
      if (selection.kind === Kind.FRAGMENT_SPREAD && (!fragment || visiting.has(fragment.name.value))) continue; // unknown or cyclic: other rules report it
      const condition = selection.kind === Kind.FRAGMENT_SPREAD ? fragment!.typeCondition : selection.typeCondition;
      const inner = condition ? (schema.getType(condition.name.value) ?? type) : type;
      if (fragment) visiting.add(fragment.name.value);
      const set = fragment ? fragment.selectionSet : selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : undefined;
      keep(measure(schema, inner, set, fragments, visiting));
      if (fragment) visiting.delete(fragment.name.value);
    }
  }
  return most;
}

export const queryLimitsRule: ValidationRule = (context) => ({
  Document(document) {
    const schema = context.getSchema();
    const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
    let aliases = 0;
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const root = schema.getRootType(definition.operation) ?? undefined;
      const found = measure(schema, root, definition.selectionSet, fragments, new Set());
      const name = definition.name ? ` ${definition.name.value}` : "";
      if (found.depth > QUERY_LIMITS.depth) {
        context.reportError(new GraphQLError(`The operation${name} nests fields ${found.depth} deep; at most ${QUERY_LIMITS.depth} are allowed`, { nodes: [definition] }));
      }
      if (found.entityLists > QUERY_LIMITS.entityLists) {
        context.reportError(
          new GraphQLError(`The operation${name} nests ${found.entityLists} lists of entities inside one another; at most ${QUERY_LIMITS.entityLists} are allowed (ask for the inner ones by id in a second request)`, { nodes: [definition] }),
        );
      }
    }
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
      const count = (set: SelectionSetNode | undefined): number =>
        (set?.selections ?? []).reduce((n, s) => n + (s.kind === Kind.FIELD && s.alias ? 1 : 0) + count("selectionSet" in s ? s.selectionSet : undefined), 0);
      aliases += count(definition.selectionSet);
    }
    if (aliases > QUERY_LIMITS.aliases) context.reportError(new GraphQLError(`The document has ${aliases} aliased fields; at most ${QUERY_LIMITS.aliases} are allowed`));
  },
});

/** Adds the limits to the validation of every document clients send (HTTP and graphql-ws). */
export function useQueryLimits(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        assertDocumentNesting(source);
        return parseFn(source, options);
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(queryLimitsRule);
    },
  };
}
