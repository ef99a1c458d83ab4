import type { IncomingMessage, ServerResponse } from "node:http";
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult } from "graphql";
import { readBody } from "../core/request-body.js";
import { PayloadTooLargeError } from "../core/errors.js";
import type { RequestIdentity } from "./context-factory.js";
import { responseBody, responseInit, withProblemExtensions } from "./error-format.js";
import { checkParams, isJsonContentType, paramsFromJson, paramsFromSearch, requestError, type GraphqlParams } from "./params.js";
import type { AppYoga } from "./yoga.js";
import type { FileStorage } from "../storage/storage.js";
import { receiveGraphqlMultipart, type GraphqlMultipart } from "./multipart.js";

type NodeRequest = IncomingMessage & { originalUrl?: string; path?: string };

const RESPONSE_TYPES = ["application/graphql-response+json", "application/json"] as const;

/**
 * The JSON media type Yoga would answer with for this Accept header, or undefined when it would
 * pick another processor (text/event-stream, multipart/mixed) or none (406). Yoga's rule: the
 * first acceptable type in the header's order (utf-8 only), `application/json` for wildcards.
 */
export function jsonResponseType(accept: string | undefined): string | undefined {
  const types = (accept || "*/*").replace(/\s/g, "").toLowerCase().split(",");
  let chosen: string | undefined;
  for (let i = types.length - 1; i >= 0; i--) {
    const [type, ...params] = types[i].split(";");
    if ((params.find((p) => p.includes("charset=")) ?? "charset=utf-8") !== "charset=utf-8") continue;
    const [major, minor] = type.split("/");
    for (const candidate of RESPONSE_TYPES) {
      const [cMajor, cMinor] = candidate.split("/");
      if ((major === "*" || major === cMajor) && (minor === "*" || minor === cMinor)) chosen = candidate;
    }
  }
  return chosen;
}

/** Yoga's default CORS answer (no `cors` option): the caller's origin, with credentials. */
function corsHeaders(req: IncomingMessage, headers: Record<string, string>): void {
  const origin = req.headers.origin;
  if (!origin) return;
  headers["Access-Control-Allow-Origin"] = origin;
  headers.Vary = "Origin";
  const method = req.headers["access-control-request-method"];
  if (method) headers["Access-Control-Allow-Methods"] = method;
  const requested = req.headers["access-control-request-headers"];
  if (requested) {
    headers["Access-Control-Allow-Headers"] = requested;
    headers.Vary += ", Access-Control-Request-Headers";
  }
  headers["Access-Control-Allow-Credentials"] = "true";
}

/** Marks a syntax error as Yoga does for HTTP requests (400, or 200 to `application/json` clients). */
function parseFailure(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  const extensions = error.extensions as Record<string, unknown>;
  extensions.code ??= "GRAPHQL_PARSE_FAILED";
  extensions.http ??= { spec: true, status: 400 };
  return error;
}

/**
 * POST and GET on /api/graphql, for requests answered with one JSON result (nearly all of them):
 * the request is read straight from Node's request and the result written to its response,
 * through the same envelop pipeline as REST routes and graphql-ws (`yoga.getEnveloped`: document
 * cache, limits, authentication, compiled execution, error masking). Everything else goes to Yoga,
 * which this handler mirrors for the requests it serves (statuses, headers, messages):
 * GraphiQL (GET asking for HTML), multipart bodies, other content types and methods, CORS
 * preflight, responses as text/event-stream or multipart/mixed, and subscriptions over HTTP.
 * Yoga's fetch-API adaptation (Request/Response objects, body streams, header objects) cost about
 * as much CPU as running the operation itself.
 */
export function createGraphqlHandler(options: {
  yoga: AppYoga;
  identify: (req: IncomingMessage) => RequestIdentity;
  bodyLimit: number;
  maskError: (error: unknown) => GraphQLError;
  /** Where multipart file parts are staged (GraphQL uploads), and their size limit. */
  uploads?: { storage: FileStorage; maxBytes: number };
}) {
  const { yoga, identify, bodyLimit, maskError, uploads } = options;

  /** Lets Yoga answer a request whose body this handler has already read. */
  async function handOff(req: NodeRequest, res: ServerResponse, body: string | undefined): Promise<void> {
    const headers = Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value] as [string, string]]));
    const response = await yoga.fetch(`http://localhost${req.originalUrl ?? req.url}`, { method: req.method, headers, body }, { req, res } as never);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  }

  return async function graphqlHandler(req: NodeRequest, res: ServerResponse): Promise<void> {
    const method = req.method;
    const mediaType = req.path === "/" ? jsonResponseType(req.headers.accept) : undefined;
    const isMultipart = uploads !== undefined && method === "POST" && /^multipart\/form-data/i.test(req.headers["content-type"] ?? "");
    const ours =
      mediaType !== undefined &&
      (method === "POST" ? isJsonContentType(req.headers["content-type"]) || isMultipart : method === "GET" && !req.headers.accept?.includes("text/html"));
    if (!ours) {
      await yoga(req, res);
      return;
    }
    const headers: Record<string, string> = { "Content-Type": `${mediaType}; charset=utf-8` };
    let result: ExecutionResult;
    let multipart: GraphqlMultipart | undefined;
    try {
      let body: string | undefined;
      let params: GraphqlParams | GraphqlParams[];
      if (isMultipart) {
        multipart = await receiveGraphqlMultipart(req, uploads!.storage, uploads!.maxBytes);
        params = multipart.params;
      } else if (method === "POST") {
        body = await readBody(req, bodyLimit);
        params = paramsFromJson(body);
      } else {
        const url = req.url ?? "";
        const at = url.indexOf("?");
        params = paramsFromSearch(at < 0 ? "" : url.slice(at + 1));
      }
      checkParams(params);
      const operationName = typeof params.operationName === "string" ? params.operationName : undefined;
      const { parse, validate, contextFactory, execute, schema } = yoga.getEnveloped({ identity: identify(req), params } as never);
      let document: DocumentNode;
      try {
        document = parse(params.query);
      } catch (error) {
        throw parseFailure(error);
      }
      const operation = params.operationName == null || operationName !== undefined ? getOperationAST(document, operationName) : null;
      if (!operation) throw requestError("Could not determine what operation to execute.", "OPERATION_RESOLUTION_FAILURE", { status: 400 });
      if (operation.operation === "mutation" && method === "GET") {
        throw requestError("Can only perform a mutation operation from a POST request.", "BAD_REQUEST", { status: 405, headers: { Allow: "POST" } });
      }
      if (operation.operation === "subscription" && multipart) throw requestError("Subscriptions cannot be sent as multipart requests", "BAD_REQUEST", { status: 400 });
      if (operation.operation === "subscription") {
        await handOff(req, res, body);
        return;
      }
      const errors = validate(schema, document);
      if (errors.length > 0) {
        result = { errors };
      } else {
        const contextValue = await contextFactory();
        // Staged file parts, taken by mutations through takeUpload as REST upload routes do.
        if (multipart) (contextValue as { uploads?: GraphqlMultipart["uploads"] }).uploads = multipart.uploads;
        result = (await execute({ schema, document, contextValue, variableValues: params.variables as Record<string, unknown> | undefined, operationName })) as ExecutionResult;
      }
    } catch (error) {
      if (res.destroyed || (error as { code?: string } | undefined)?.code === "ECONNRESET") return; // the client is gone
      // A body left unread (refused while reading it) is not drained: the connection ends.
      if (error instanceof PayloadTooLargeError || !req.complete) headers.Connection = "close";
      result = { errors: [maskError(error)] };
    } finally {
      await multipart?.discard();
    }
    if (result.errors?.length) result = { ...result, errors: result.errors.map(withProblemExtensions) };
    let text: string;
    try {
      text = responseBody(result);
    } catch (error) {
      // A value JSON cannot hold (a BigInt a resolver returned by mistake): a 500 like any other bug.
      result = { errors: [withProblemExtensions(maskError(error))] };
      text = responseBody(result);
    }
    const status = responseInit(result, mediaType, headers);
    corsHeaders(req, headers);
    headers["Content-Length"] = String(Buffer.byteLength(text));
    res.writeHead(status, headers);
    res.end(text);
  };
}
