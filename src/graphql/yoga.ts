import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import { GraphQLError, type GraphQLSchema } from "graphql";
import { createYoga, type GraphQLParams, type Plugin } from "graphql-yoga";
import type { App } from "../app-types.js";
import { InternalError } from "../core/errors.js";
import { clientAddress, requestOrigin } from "../auth/request-address.js";
import { buildRequestContext, type RequestIdentity } from "./context-factory.js";
import { useQueryLimits } from "./query-limits.js";
import { useIdArguments } from "./id-arguments.js";
import { useMutationSelectionCheck } from "./mutation-selection.js";
import { useOperationMetrics } from "./metrics-plugin.js";
import { useDocuments, type DocumentStats } from "./documents.js";
import { withProblemExtensions } from "./error-format.js";
import { isJsonContentType, paramsFromJson, paramsFromMultipart, paramsFromSearch, requestError } from "./params.js";

export const GRAPHQL_PATH = "/api/graphql";

/**
 * Bodies and query strings of /api/graphql requests Yoga serves itself (see http.ts for the
 * others) are read as there: JSON through the REST layer's parser (unique keys, exact integers),
 * also the JSON fields of a multipart request.
 * Yoga's body size limit still wraps the POST parser.
 */
function useUniqueKeyJsonParser(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === "POST" && isJsonContentType(request.headers.get("content-type"))) {
        setRequestParser(async (req) => paramsFromJson(await req.text()) as GraphQLParams);
      } else if (request.method === "POST" && request.headers.get("content-type")?.toLowerCase().startsWith("multipart/form-data")) {
        setRequestParser(async (req) => {
          let form: FormData;
          try {
            form = await req.formData();
          } catch (error) {
            if (error instanceof GraphQLError) throw error; // a streamed body over maxRequestBodySize: Yoga's 413
            throw requestError(`POST body sent invalid multipart data: ${(error as Error).message}`, "BAD_REQUEST", { status: 400 });
          }
          return paramsFromMultipart(form) as GraphQLParams;
        });
      } else if (request.method === "GET") {
        setRequestParser((req) => paramsFromSearch(req.url.slice(req.url.indexOf("?") + 1)) as GraphQLParams);
      }
    },
  };
}

function useProblemExtensions(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !result || typeof result !== "object" || !("errors" in result) || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map((error) => withProblemExtensions(error instanceof GraphQLError ? error : new GraphQLError(String((error as Error).message ?? error)))) });
    },
  };
}

/** Any error that is not one of ours is logged and becomes a generic 500 that leaks nothing. */
function maskerFor(app: App): (error: unknown) => GraphQLError {
  return (error) => {
    if (error instanceof GraphQLError) {
      const original = error.originalError;
      if (!original || original instanceof GraphQLError) return error;
      app.logger.error("unexpected error in a resolver", { error: original, path: error.path?.join(".") });
      return new GraphQLError("Unexpected error", { nodes: error.nodes, path: error.path, extensions: new InternalError().extensions });
    }
    app.logger.error("unexpected error", { error });
    return new InternalError();
  };
}

export type AppYoga = ReturnType<typeof createYoga<Record<string, unknown>>>;

export interface GraphqlPipeline {
  yoga: AppYoga;
  /** Documents parsed, validated and compiled since start-up (cache misses). */
  documents: DocumentStats;
  maskError(error: unknown): GraphQLError;
}

/**
 * The one GraphQL execution pipeline: Yoga's envelop with our plugins (document cache and
 * compiled execution, query limits, masked errors; authentication in the context factory,
 * authorization in the schema). /api/graphql (http.ts, and Yoga itself for what http.ts passes
 * on), graphql-ws and the REST routes all execute through `yoga.getEnveloped`.
 */
export function createGraphqlPipeline(app: App, schema: GraphQLSchema): GraphqlPipeline {
  const documents = useDocuments();
  const maskError = maskerFor(app);
  const yoga = createYoga<Record<string, unknown>>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // The document cache comes after useQueryLimits: the rules it keys validation results by include the limits.
    plugins: [useUniqueKeyJsonParser(), useProblemExtensions(), useQueryLimits(), useIdArguments(), useMutationSelectionCheck(), useOperationMetrics(app.metrics), documents],
    parserAndValidationCache: false,
    maxRequestBodySize: app.config.jsonBodyLimit,
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
    maskedErrors: { maskError },
    context: async (initial) => {
      const given = (initial as { identity?: RequestIdentity }).identity ?? (initial as { rest?: RequestIdentity }).rest;
      if (given) return buildRequestContext(app, given);
      const req = (initial as { req?: IncomingMessage }).req;
      return buildRequestContext(app, {
        authorization: initial.request.headers.get("authorization"),
        clientIp: clientAddress(req, app.config),
        origin: requestOrigin(req, app.config),
        requestId: initial.request.headers.get("x-request-id") ?? randomUUID(),
      });
    },
  });
  return { yoga, documents: documents.stats, maskError };
}
