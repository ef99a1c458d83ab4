import { BREAK, Kind, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type ValidationRule } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { makeExecute, type Plugin } from "graphql-yoga";

/** Documents longer than this are parsed and validated on every request rather than kept. */
const MAX_CACHED_TEXT = 64 * 1024;
const MAX_DOCUMENTS = 1000;

/** What the caches did since start-up: work actually done, not cache hits. */
export interface DocumentStats {
  parsed: number;
  validated: number;
  compiled: number;
}

interface Validation {
  rules: readonly ValidationRule[] | undefined;
  errors: readonly GraphQLError[];
}

interface Compiled {
  /** Compiled per operation name: one document may hold several operations. */
  byOperation: Map<string, CompiledQuery | null>;
  /** Shapes graphql-jit runs wrongly (see jitWouldMisrun); those run on graphql-js. */
  misrun: boolean;
}

/** The most recently used entries, at most `max` of them. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

function sameRules(a: readonly ValidationRule[] | undefined, b: readonly ValidationRule[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((rule, i) => rule === b[i]);
}

/**
 * Whether graphql-jit would run the document wrongly, so it runs on graphql-js instead (rare
 * shapes; REST route documents never have them):
 * - an integer literal beyond ±(2^53 - 1), e.g. an INT64 bound inline in a filter: graphql-jit
 *   embeds literal arguments into its generated code as JSON, which loses the exact digits the
 *   JSON scalar noted (core/exact-integers.ts);
 * - a variable inside an object or list literal (`filter: { name: $n }`): graphql-jit cannot parse
 *   a custom scalar's literal holding variables and silently drops them, so the filter was ignored.
 */
export function jitWouldMisrun(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    IntValue(node) {
      if (Number.isSafeInteger(Number(node.value))) return undefined;
      found = true;
      return BREAK;
    },
    Variable(_node, _key, _parent, _path, ancestors) {
      if (!ancestors.some((a) => "kind" in a && (a.kind === Kind.OBJECT || a.kind === Kind.LIST))) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/**
 * Parsing, validation and compilation of GraphQL documents, each done once per document: the
 * parsed document is kept per text (LRU), its validation result and its compiled form (graphql-jit,
 * per operation name) per parsed document. /api/graphql, graphql-ws and REST routes (whose
 * documents are parsed and validated at start-up) all execute through it, so a repeated document
 * costs a map lookup. Replaces Yoga's parser and validation cache, and @envelop/graphql-jit, whose
 * cache is keyed by document alone: a second operation of the same document ran the first one.
 */
export function useDocuments(): Plugin & { stats: DocumentStats } {
  const stats: DocumentStats = { parsed: 0, validated: 0, compiled: 0 };
  const documents = new Lru<DocumentNode | GraphQLError>(MAX_DOCUMENTS);
  const validations = new WeakMap<DocumentNode, Validation>();
  const compilations = new WeakMap<DocumentNode, Compiled>();

  const compiledFor = (args: ExecutionArgs): CompiledQuery | null => {
    let compiled = compilations.get(args.document);
    if (!compiled) {
      compiled = { byOperation: new Map(), misrun: jitWouldMisrun(args.document) };
      compilations.set(args.document, compiled);
    }
    if (compiled.misrun) return null;
    const name = args.operationName ?? "";
    let query = compiled.byOperation.get(name);
    if (query === undefined) {
      // A document graphql-jit cannot compile (or one it refuses, like an unknown operation name)
      // runs on graphql-js, which reports the problem the way every other path does.
      let result: CompiledQuery | ExecutionResult | undefined;
      try {
        result = compileQuery(args.schema, args.document, args.operationName ?? undefined) as CompiledQuery | ExecutionResult;
      } catch {
        result = undefined;
      }
      query = result && isCompiledQuery(result) ? result : null;
      if (query) stats.compiled++;
      compiled.byOperation.set(name, query);
    }
    return query;
  };

  const compiledExecute = makeExecute((args) => compiledFor(args)!.query(args.rootValue, args.contextValue, args.variableValues));

  return {
    stats,
    onParse({ params, setParsedDocument, setParseFn, parseFn }) {
      const text = typeof params.source === "string" ? params.source : params.source.body;
      const cached = text.length <= MAX_CACHED_TEXT ? documents.get(text) : undefined;
      if (cached && !(cached instanceof Error)) {
        setParsedDocument(cached);
        return undefined;
      }
      if (cached) throw cached;
      setParseFn((source, options) => {
        stats.parsed++;
        return parseFn(source, options);
      });
      return ({ result }) => {
        if (result && text.length <= MAX_CACHED_TEXT) documents.set(text, result as DocumentNode | GraphQLError);
      };
    },
    onValidate({ params, setResult, setValidationFn, validateFn }) {
      const cached = validations.get(params.documentAST);
      if (cached && sameRules(cached.rules, params.rules)) {
        setResult([...cached.errors]);
        return undefined;
      }
      const rules = params.rules ? [...params.rules] : undefined;
      setValidationFn((...args) => {
        stats.validated++;
        return validateFn(...args);
      });
      return ({ result }) => {
        validations.set(params.documentAST, { rules, errors: result as readonly GraphQLError[] });
      };
    },
    onExecute({ args, setExecuteFn }) {
      if (compiledFor(args)) setExecuteFn(compiledExecute);
    },
  };
}
