import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { randomUUID } from "node:crypto";
import { BREAK, GraphQLError, Kind, visit, type DocumentNode, type GraphQLSchema } from "graphql";
import { createYoga, type GraphQLParams, type Plugin } from "graphql-yoga";
import { useGraphQlJit } from "@envelop/graphql-jit";
import type { App } from "../app-types.js";
import { InternalError, ValidationError } from "../core/errors.js";
import { parseJsonBody } from "../core/json-body.js";
import { normaliseAddress } from "../auth/ip-allow.js";
import { buildRequestContext, type RequestIdentity } from "./context-factory.js";
import { useQueryLimits } from "./query-limits.js";
import { useOperationMetrics } from "./metrics-plugin.js";

export const GRAPHQL_PATH = "/api/graphql";

function isSubscription(document: DocumentNode): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === "subscription");
}

const jitUnsafe = new WeakMap<DocumentNode, boolean>();

/**
 * Whether the document is one graphql-jit would run wrongly, so it runs on graphql-js instead
 * (rare shapes, cached per parsed document; REST route documents never have them):
 * - an integer literal beyond ±(2^53 - 1), e.g. an INT64 bound inline in a filter: graphql-jit
 *   embeds literal arguments into its generated code as JSON, which loses the exact digits the
 *   JSON scalar noted (core/exact-integers.ts);
 * - a variable inside an object or list literal (`filter: { name: $n }`): graphql-jit cannot parse
 *   a custom scalar's literal holding variables and silently drops them, so the filter was ignored.
 */
function jitWouldMisrun(document: DocumentNode): boolean {
  let found = jitUnsafe.get(document);
  if (found === undefined) {
    found = false;
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
    jitUnsafe.set(document, found);
  }
  return found;
}

/** Client address as the rate limiter and `allowedAddresses` see it. */
export function clientAddress(req: IncomingMessage | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req?.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) return normaliseAddress(first);
  }
  return normaliseAddress(req?.socket.remoteAddress ?? "0.0.0.0");
}

/** A bare host with an optional port: a DNS name, IPv4 address or bracketed IPv6 address. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

function firstValue(header: string | string[] | undefined): string | undefined {
  return (Array.isArray(header) ? header[0] : header)?.split(",")[0]?.trim() || undefined;
}

/**
 * The scheme and host the caller addressed (`https://api.example.com`), the base of links sent by
 * email when PUBLIC_URL is unset. X-Forwarded-Proto/-Host count only with TRUST_PROXY, exactly as
 * X-Forwarded-For does for `clientAddress`: without a proxy that sets them, any caller could.
 * The Host header is the caller's to choose, so only a bare host[:port] is accepted (undefined
 * otherwise): nothing else of it can reach an email. PUBLIC_URL pins the address for production.
 */
export function requestOrigin(req: IncomingMessage | undefined, trustProxy: boolean): string | undefined {
  if (!req) return undefined;
  let scheme = (req.socket as TLSSocket | undefined)?.encrypted ? "https" : "http";
  let host = firstValue(req.headers.host);
  if (trustProxy) {
    const forwardedScheme = firstValue(req.headers["x-forwarded-proto"])?.toLowerCase();
    if (forwardedScheme === "http" || forwardedScheme === "https") scheme = forwardedScheme;
    host = firstValue(req.headers["x-forwarded-host"]) ?? host;
  }
  host = host?.toLowerCase();
  if (!host || host.length > 260 || !HOST.test(host)) return undefined;
  return `${scheme}://${host}`;
}

function isPostJson(request: Request): boolean {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  return request.method === "POST" && (type === "application/json" || type === "application/graphql+json");
}

/**
 * JSON POST bodies of /api/graphql are parsed by the REST layer's parser instead of Yoga's
 * `request.json()`: keys must be unique within an object (spec 4.2 rule 2; JSON.parse would keep
 * the last of two equal keys of a filter variable without a word), and integer literals beyond
 * 2^53 keep their digits for the query language. Yoga's body size limit still wraps this parser.
 */
function useUniqueKeyJsonParser(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (!isPostJson(request)) return;
      setRequestParser(async (req) => {
        const text = await req.text();
        let body: unknown;
        try {
          body = parseJsonBody(text);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          // Yoga takes the HTTP status of errors raised while parsing the request from extensions.http.
          throw new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 400 } } });
        }
        if (typeof body !== "object" || body === null) {
          throw new GraphQLError(`POST body is expected to be object but received ${body === null ? "null" : typeof body}`, {
            extensions: { ...new ValidationError("POST body must be a JSON object", { identifier: "body" }).extensions, http: { status: 400 } },
          });
        }
        return body as GraphQLParams;
      });
    },
  };
}

/** Errors GraphQL itself raises before any resolver runs, by Yoga's code: our code and status. */
const REQUEST_ERRORS: Record<string, { code: string; status: number }> = {
  GRAPHQL_PARSE_FAILED: { code: "VALIDATION", status: 400 },
  GRAPHQL_VALIDATION_FAILED: { code: "VALIDATION", status: 400 },
  BAD_USER_INPUT: { code: "VALIDATION", status: 400 },
  BAD_REQUEST: { code: "VALIDATION", status: 400 },
  REQUEST_ENTITY_TOO_LARGE: { code: "PAYLOAD_TOO_LARGE", status: 413 },
};

/**
 * Every GraphQL error carries `code`, `status` and `problems` in its extensions, as the typed
 * errors do: also those of a document that does not parse or validate, variables that do not
 * coerce (an unknown or read-only input field), or a body over the limit, which GraphQL and Yoga
 * raise with a bare message. The original code stays as `graphqlCode`.
 */
export function withProblemExtensions(error: GraphQLError): GraphQLError {
  const extensions = error.extensions ?? {};
  if (typeof extensions.status === "number" && Array.isArray(extensions.problems)) return error;
  const original = typeof extensions.code === "string" ? extensions.code : undefined;
  const mapped = (original && REQUEST_ERRORS[original]) || { code: "VALIDATION", status: 400 };
  const problemType = mapped.status === 413 ? "UNKNOWN" : "ILLEGAL_ARGUMENT";
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    path: error.path,
    extensions: {
      ...extensions,
      code: mapped.code,
      ...(original ? { graphqlCode: original } : {}),
      status: mapped.status,
      problems: [{ problemType, severity: "ERROR", reason: error.message }],
    },
  });
}

function useProblemExtensions(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !result || typeof result !== "object" || !("errors" in result) || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map((error) => withProblemExtensions(error instanceof GraphQLError ? error : new GraphQLError(String((error as Error).message ?? error)))) });
    },
  };
}

/**
 * The one GraphQL execution pipeline. /api/graphql serves it over HTTP, graphql-ws runs it for
 * subscriptions, and REST routes call its envelop in-process with a ready-made identity.
 */
export function createYogaServer(app: App, schema: GraphQLSchema) {
  return createYoga<Record<string, unknown>>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // Compiled execution, cached per parsed document: REST route documents are parsed once at
    // start-up and GraphQL documents come from Yoga's parse cache, so each compiles once.
    plugins: [useUniqueKeyJsonParser(), useProblemExtensions(), useQueryLimits(), useOperationMetrics(app.metrics), useGraphQlJit({}, { enableIf: (args) => !isSubscription(args.document) && !jitWouldMisrun(args.document) })],
    landingPage: false,
    graphiql: { title: "Ledger analytics API", headers: JSON.stringify({ Authorization: "Bearer <token from DATA_DIR/admin-token>" }, null, 2) },
    // GraphiQL with its scripts and styles inlined (Yoga's default page loads them from a CDN,
    // which a self-hosted install without internet cannot reach); loaded on the first visit only,
    // the bundle is ~9 MB.
    renderGraphiQL: async (options) => (await import("@graphql-yoga/render-graphiql")).renderGraphiQL(options),
    logging: {
      debug: (...args) => app.logger.debug(String(args[0]), { args: args.slice(1) }),
      info: (...args) => app.logger.info(String(args[0]), { args: args.slice(1) }),
      warn: (...args) => app.logger.warn(String(args[0]), { args: args.slice(1) }),
      error: (...args) => app.logger.error(String(args[0]), { args: args.slice(1) }),
    },
    maskedErrors: {
      maskError(error) {
        if (error instanceof GraphQLError) {
          const original = error.originalError;
          if (!original || original instanceof GraphQLError) return error;
          app.logger.error("unexpected error in a resolver", { error: original, path: error.path?.join(".") });
          return new GraphQLError("Unexpected error", { nodes: error.nodes, path: error.path, extensions: new InternalError().extensions });
        }
        app.logger.error("unexpected error", { error });
        return new InternalError();
      },
    },
    context: async (initial) => {
      const given = (initial as { identity?: RequestIdentity }).identity ?? (initial as { rest?: RequestIdentity }).rest;
      if (given) return buildRequestContext(app, given);
      const req = (initial as { req?: IncomingMessage }).req;
      return buildRequestContext(app, {
        authorization: initial.request.headers.get("authorization"),
        clientIp: clientAddress(req, app.config.trustProxy),
        origin: requestOrigin(req, app.config.trustProxy),
        requestId: initial.request.headers.get("x-request-id") ?? randomUUID(),
      });
    },
  });
}

export type AppYoga = ReturnType<typeof createYogaServer>;
