import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Limits on what one GraphQL document may ask for. Relations make the graph cyclic
 * (organization -> engagements -> organization -> ...), and each list multiplies the result: a
 * document nesting them freely grew a response past gigabytes and blocked the server. So a
 * document is priced the way GitHub's GraphQL API prices it: every list field costs the number of
 * items it may return, its page size multiplied by the page sizes of the lists around it, and the
 * sum over the operation must stay within `nodes`. Every other field with arguments (counts,
 * lookups by id) costs one per time it runs, so aliases cost what they run. Introspection fields
 * (`__schema`, `__type`) are not counted, so GraphiQL and code generators work.
 */
export const QUERY_LIMITS = {
  /** Nesting of fields. */
  depth: 15,
  /** Estimated items and resolver calls of one operation. */
  nodes: 500_000,
  /** A list asked for without a size counts as this many items (the default page size). */
  defaultListSize: 20,
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

/** Arguments that bound how many items a list field returns. */
const SIZE_ARGUMENTS = ["size", "first", "pageSize"];

/**
 * The cost of a selection as a polynomial in the variables that give page sizes: terms keyed by
 * the sorted variable names they multiply, each with its coefficient. Computed once per parsed
 * document (fragments once each), evaluated per request with its variables: a few multiplications.
 */
type Poly = Map<string, { coefficient: number; variables: string[] }>;
type Factor = number | { variable: string };

function add(into: Poly, from: Poly, factor: Factor = 1): void {
  for (const term of from.values()) {
    const variables = typeof factor === "number" ? term.variables : [...term.variables, factor.variable].sort();
    const coefficient = typeof factor === "number" ? term.coefficient * factor : term.coefficient;
    const key = variables.join(",");
    const existing = into.get(key);
    if (existing) existing.coefficient += coefficient;
    else into.set(key, { coefficient, variables });
  }
}

const constant = (n: number): Poly => new Map([["", { coefficient: n, variables: [] }]]);

interface Measure {
  depth: number;
  cost: Poly;
}

export interface OperationCost {
  depth: number;
  cost: Poly;
  /** Defaults declared on the operation's variables. */
  defaults: Map<string, unknown>;
}

function isEntity(type: GraphQLNamedType): boolean {
  return (isObjectType(type) || isInterfaceType(type)) && (type.name === "Entity" || type.getInterfaces().some((i) => i.name === "Entity"));
}

/** Rows a data page returns when its input names no pageSize (the data endpoint's default). */
const INPUT_PAGE_SIZE_DEFAULT = 100;

/**
 * The page size a field asks for: a literal, a variable, or the argument's default; or, for fields
 * taking an `input` object with a `pageSize` (`dataTableData`), that field of the input, written
 * inline or inside a variable (`{ variable: "i.pageSize" }`).
 */
function sizeFactor(field: GraphQLField<unknown, unknown>, node: FieldNode): Factor | undefined {
  const name = SIZE_ARGUMENTS.find((n) => field.args.some((a) => a.name === n));
  if (!name) {
    const input = field.args.find((a) => a.name === "input");
    const inputType = input ? getNullableType(input.type) : undefined;
    if (!inputType || !isInputObjectType(inputType) || !inputType.getFields().pageSize) return undefined;
    const given = node.arguments?.find((a) => a.name.value === "input")?.value;
    if (given?.kind === Kind.VARIABLE) return { variable: `${given.name.value}.pageSize` };
    const pageSize = given?.kind === Kind.OBJECT ? given.fields.find((f) => f.name.value === "pageSize")?.value : undefined;
    if (pageSize?.kind === Kind.INT) return Math.max(Number(pageSize.value), 0);
    if (pageSize?.kind === Kind.VARIABLE) return { variable: pageSize.name.value };
    return INPUT_PAGE_SIZE_DEFAULT;
  }
  const given = node.arguments?.find((a) => a.name.value === name)?.value;
  if (given?.kind === Kind.INT) return Math.max(Number(given.value), 0);
  if (given?.kind === Kind.VARIABLE) return { variable: given.name.value };
  const declared = field.args.find((a) => a.name === name)?.defaultValue;
  return typeof declared === "number" ? declared : QUERY_LIMITS.defaultListSize;
}

class Pricer {
  private readonly fragmentMeasures = new Map<string, Measure | null>();
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ) {}

  /**
   * `sized`: the selection is the inside of a field that already counted its page size, so the
   * list directly in it (a page's `content`) does not count again.
   */
  measure(type: GraphQLNamedType | undefined, selectionSet: SelectionSetNode | undefined, sized: boolean): Measure {
    const result: Measure = { depth: 0, cost: new Map() };
    if (!selectionSet) return result;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith("__")) continue;
        const field = type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[selection.name.value] : undefined;
        if (!field) continue; // other rules report unknown fields
        const fieldType = getNamedType(field.type);
        const isList = isListType(getNullableType(field.type));
        const size = sizeFactor(field, selection);
        let factor: Factor = 1;
        let own = 0;
        if (size !== undefined) factor = size;
        else if (isList && isEntity(fieldType) && !sized) factor = QUERY_LIMITS.defaultListSize;
        else if ((selection.arguments?.length ?? 0) > 0 || field.args.length > 0) own = 1;
        const below = this.measure(fieldType, selection.selectionSet, size !== undefined);
        result.depth = Math.max(result.depth, below.depth + 1);
        if (factor !== 1) add(result.cost, constant(1), factor);
        else if (own) add(result.cost, constant(own));
        add(result.cost, below.cost, factor);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const found = this.fragment(selection.name.value, sized);
        if (!found) continue; // unknown or cyclic: other rules report it
        result.depth = Math.max(result.depth, found.depth);
        add(result.cost, found.cost);
      } else {
        const inner = selection.typeCondition ? (this.schema.getType(selection.typeCondition.name.value) ?? type) : type;
        const found = this.measure(inner, selection.selectionSet, sized);
        result.depth = Math.max(result.depth, found.depth);
        add(result.cost, found.cost);
      }
    }
    return result;
  }

  /** Each fragment is measured once however often it is spread (a document of nested spreads would otherwise take exponential time). */
  private fragment(name: string, sized: boolean): Measure | null {
    const key = `${sized ? "s" : "u"}:${name}`;
    if (this.fragmentMeasures.has(key)) return this.fragmentMeasures.get(key)!;
    const fragment = this.fragments.get(name);
    this.fragmentMeasures.set(key, null); // a cycle reaches this entry and stops
    if (!fragment) return null;
    const measured = this.measure(this.schema.getType(fragment.typeCondition.name.value) ?? undefined, fragment.selectionSet, sized);
    this.fragmentMeasures.set(key, measured);
    return measured;
  }
}

const costs = new WeakMap<DocumentNode, Map<OperationDefinitionNode, OperationCost>>();

/** Depth and cost of every operation of a document, computed once per parsed document. */
export function documentCosts(schema: GraphQLSchema, document: DocumentNode): Map<OperationDefinitionNode, OperationCost> {
  const cached = costs.get(document);
  if (cached) return cached;
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const pricer = new Pricer(schema, fragments);
  const result = new Map<OperationDefinitionNode, OperationCost>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation) ?? undefined;
    const measured = pricer.measure(root, definition.selectionSet, false);
    const defaults = new Map<string, unknown>();
    for (const v of definition.variableDefinitions ?? []) {
      if (v.defaultValue?.kind === Kind.INT) defaults.set(v.variable.name.value, Number(v.defaultValue.value));
    }
    result.set(definition, { ...measured, defaults });
  }
  costs.set(document, result);
  return result;
}

/** The operation's cost with these variables (a size variable left out or null counts as its default, else the default page size). */
export function evaluateCost(cost: OperationCost, variables: Readonly<Record<string, unknown>> | null | undefined): number {
  const value = (name: string): number => {
    const [variable, member] = name.split(".") as [string, string | undefined];
    let given = variables?.[variable] ?? cost.defaults.get(variable);
    if (member !== undefined) {
      given = given !== null && typeof given === "object" ? (given as Record<string, unknown>)[member] : undefined;
      if (given === undefined || given === null) return INPUT_PAGE_SIZE_DEFAULT;
    }
    return typeof given === "number" && Number.isFinite(given) ? Math.max(given, 0) : QUERY_LIMITS.defaultListSize;
  };
  let total = 0;
  for (const term of cost.cost.values()) total += term.variables.reduce((n, v) => n * value(v), term.coefficient);
  return total;
}

const isConstant = (cost: OperationCost) => [...cost.cost.values()].every((t) => t.variables.length === 0);

function tooCostly(definition: OperationDefinitionNode, cost: number): GraphQLError {
  const name = definition.name ? ` ${definition.name.value}` : "";
  return new GraphQLError(
    `The operation${name} may return ${cost} items and field calls (page sizes multiplied through the nesting); at most ${QUERY_LIMITS.nodes} are allowed (ask for smaller pages, or the inner lists in a second request)`,
    { nodes: [definition], extensions: { code: "GRAPHQL_VALIDATION_FAILED", http: { status: 400 } } },
  );
}

/** Depth, and the cost of operations whose page sizes are all written in the document. */
export const queryLimitsRule: ValidationRule = (context) => ({
  Document(document) {
    for (const [definition, cost] of documentCosts(context.getSchema(), document)) {
      const name = definition.name ? ` ${definition.name.value}` : "";
      if (cost.depth > QUERY_LIMITS.depth) {
        context.reportError(new GraphQLError(`The operation${name} nests fields ${cost.depth} deep; at most ${QUERY_LIMITS.depth} are allowed`, { nodes: [definition] }));
      }
      if (isConstant(cost)) {
        const total = evaluateCost(cost, undefined);
        if (total > QUERY_LIMITS.nodes) context.reportError(tooCostly(definition, total));
      }
    }
  },
});

/**
 * Adds the limits to the validation of every document clients send (HTTP and graphql-ws), and
 * prices operations whose page sizes come from variables before they run.
 */
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
    onExecute({ args, setResultAndStopExecution }) {
      const operations = documentCosts(args.schema, args.document);
      const wanted = args.operationName;
      for (const [definition, cost] of operations) {
        if (operations.size > 1 && definition.name?.value !== wanted) continue;
        if (isConstant(cost)) continue;
        const total = evaluateCost(cost, args.variableValues);
        if (total > QUERY_LIMITS.nodes) setResultAndStopExecution({ errors: [tooCostly(definition, total)] });
      }
    },
  };
}
