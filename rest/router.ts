import type { Request, Response } from "express";
import { pipeline } from "node:stream/promises";
import { getNamedType, getNullableType, isListType, isScalarType, type ExecutionResult, type GraphQLInputType } from "graphql";
import type { YogaServerInstance } from "graphql-yoga";
import { ForbiddenError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, ValidationError, type AppError, type Problem } from "../src/core/errors.js";
import { parseJsonBody } from "../src/core/json-body.js";
import { readBody } from "../src/core/request-body.js";
import type { Logger } from "../src/core/logger.js";
import type { RequestIdentity } from "../src/graphql/context-factory.js";
import type { RequestContext } from "../src/graphql/context.js";
import type { Permission } from "../src/auth/permissions.js";
import type { FileStorage } from "../src/storage/storage.js";
import { receiveBody, receiveMultipart, type ReceivedMultipart } from "./uploads.js";
import type { CompiledRoute } from "./compile.js";
import { errorBody } from "./error-body.js";
import { coercionProblems, normalizeInput, throwIfProblems } from "./input-normalize.js";

export interface RestRequestInfo extends RequestIdentity {
  path: string;
}

type Yoga = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;

/** Removes null-valued keys: the wire omits nulls (a missing key means "not set"). */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value instanceof Date || value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) if (child !== null && child !== undefined && key !== "__typename") out[key] = stripNulls(child);
  return out;
}

/**
 * A path parameter as sent, percent-decoded. Path parameters are ids: a broken escape (`%E0%A4%A`)
 * or a control character (`%00`, which PostgreSQL text cannot hold) is the caller's mistake, and
 * is refused before anything (an upload's limit, a claim) looks the id up.
 */
function pathValue(raw: string, name: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw new ValidationError(`Path parameter ${name} is not a valid percent-encoded value`, { identifier: name, values: [raw], problemType: "INCORRECT_DATA_TYPE" });
  }
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError(`Path parameter ${name} expects an id without control characters (such as NUL)`, { identifier: name, values: [raw], problemType: "INCORRECT_DATA_TYPE" });
  }
  return value;
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** The same check as the root field's scope, made before an upload's bytes are read. */
function assertPermission(ctx: RequestContext, accepted: string[]): void {
  if (accepted.includes("authenticated")) return;
  if (!accepted.some((permission) => ctx.auth?.permissions.has(permission as Permission))) {
    throw new ForbiddenError(`The token lacks the permission ${accepted.join(" or ")}`, { values: accepted });
  }
}

function queryValue(raw: unknown, type: GraphQLInputType, name: string): unknown {
  if (raw === undefined) return undefined;
  const nullable = getNullableType(type);
  if (isListType(nullable)) return (Array.isArray(raw) ? raw : [raw]).map((item) => queryValue(item, nullable.ofType, name));
  const text = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  const named = getNamedType(type);
  if (isScalarType(named) && named.name === "Int") {
    if (!/^-?\d+$/.test(text)) throw new ValidationError(`Query parameter ${name} must be an integer`, { identifier: name, values: [text], problemType: "INCORRECT_DATA_TYPE" });
    return Number(text);
  }
  if (isScalarType(named) && named.name === "Boolean") {
    if (text !== "true" && text !== "false") throw new ValidationError(`Query parameter ${name} must be true or false`, { identifier: name, values: [text], problemType: "INCORRECT_DATA_TYPE" });
    return text === "true";
  }
  return text;
}

/**
 * Action routes whose arguments are picked from body keys ({engagementId}, {chunkedFileId, name, type})
 * accept exactly those keys: anything else is an unknown property (spec 2.1 rule 3).
 */
function unknownBodyKeys(route: CompiledRoute, body: unknown): Problem[] {
  const sources = route.variables.map((v) => v.source);
  // A route taking the whole body leaves its shape to GraphQL input coercion.
  if (body === undefined || body === null || sources.some((s) => s.from === "body")) return [];
  const known = new Set(sources.flatMap((s) => (s.from === "bodyKey" ? [s.name] : [])));
  const expected = known.size > 0 ? `expected ${[...known].join(", ")}` : "this request takes no body properties";
  if (typeof body !== "object" || Array.isArray(body)) {
    return [{ problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: "body", reason: `The request body must be a JSON object; ${expected}` }];
  }
  return Object.keys(body)
    .filter((key) => !known.has(key))
    .map((key) => ({ problemType: "ILLEGAL_ARGUMENT" as const, severity: "ERROR" as const, identifier: key, reason: `${key} is not a property of this request; ${expected}` }));
}

/**
 * Serves /api/v1: finds the route, gathers its variables from path, query string and body, checks
 * them, and executes the route's pre-validated document in-process through Yoga's envelop
 * pipeline, so authentication, authorization and error masking are those of /api/graphql.
 */
export function createRestHandler(options: {
  routes: CompiledRoute[];
  yoga: Yoga;
  logger: Logger;
  bodyLimit: number;
  identify: (req: Request) => RequestIdentity;
  storage: FileStorage;
  maxUploadBytes: number;
}) {
  const { routes, yoga, logger, bodyLimit, storage } = options;

  const send = (res: Response, info: { requestId: string; path: string }, error: Pick<AppError, "message" | "extensions">) => {
    const { status, headers, body } = errorBody(error, { id: info.requestId, path: info.path });
    res.status(status).set(headers).json(body);
  };

  return async function restHandler(req: Request, res: Response): Promise<void> {
    const identity = options.identify(req);
    const info = { requestId: identity.requestId, path: req.originalUrl.split("?")[0] };
    try {
      const path = req.path;
      let route: CompiledRoute | undefined;
      let match: RegExpExecArray | null = null;
      const allowed = new Set<string>();
      for (const candidate of routes) {
        const m = candidate.pattern.exec(path);
        if (!m) continue;
        if (candidate.method === req.method) {
          route = candidate;
          match = m;
          break;
        }
        allowed.add(candidate.method);
      }
      if (!route || !match) {
        if (allowed.size > 0) throw new MethodNotAllowedError(req.method, path, [...allowed]);
        throw new NotFoundError("Endpoint", `${req.method} ${path}`);
      }

      // The route template labels the request's metrics (server.ts), bounded unlike the path.
      res.locals.routeTemplate = route.path;
      const { execute, contextFactory, schema } = yoga.getEnveloped({ rest: identity } as never);
      // Who is asking, and whether the route is theirs, is settled before a single byte of the body
      // is read: an anonymous caller must not make the server read and parse up to JSON_BODY_LIMIT
      // (or stage a huge upload), and a bad body must not hide a 401/403 behind a 400.
      const contextValue = (await contextFactory()) as unknown as RequestContext;
      assertPermission(contextValue, route.acceptedPermissions);
      let release: (() => Promise<void>) | undefined;
      try {
        let body: unknown;
        let multipart: ReceivedMultipart | undefined;
        const params = () => Object.fromEntries(route!.pathParams.map((name, i) => [name, pathValue(match![i + 1], name)]));
        if (route.def.upload) {
          const limitFor = await route.def.upload.limit?.(contextValue, params());
          const observe = route.def.upload.observe;
          multipart = await receiveMultipart(req, route.def.upload, storage, route.def.upload.maxBytes ?? options.maxUploadBytes, limitFor, observe && ((file) => observe(contextValue, file)));
          contextValue.uploads = new Map([...multipart.files.values()].map((file) => [file.id, file]));
        } else if (route.def.bodyFile) {
          release = await route.def.bodyFile.claim?.(contextValue, params());
          multipart = await receiveBody(req, route.def.bodyFile, storage, bodyLimit);
          contextValue.uploads = new Map([...multipart.files.values()].map((file) => [file.id, file]));
        } else if (req.method === "POST" || req.method === "PUT") {
          const text = await readBody(req, bodyLimit);
          body = text.trim() === "" ? undefined : parseJsonBody(text);
        }

        try {
          const problems: Problem[] = [];
          problems.push(...unknownBodyKeys(route, body));
          const variables: Record<string, unknown> = {};
          for (const variable of route.variables) {
            const source = variable.source;
            let value: unknown;
            if (source.from === "path") value = pathValue(match[route.pathParams.indexOf(source.name) + 1], source.name);
            else if (source.from === "query") value = queryValue(req.query[source.name], variable.type, source.name);
            else if (source.from === "body") value = body;
            else if (source.from === "bodyKey") value = body && typeof body === "object" ? (body as Record<string, unknown>)[source.name] : undefined;
            else if (source.from === "part") value = multipart?.json[source.name];
            else if (source.from === "file") value = multipart?.files.get(source.name)?.id;
            else if (source.from === "bodyFile") value = route.def.bodyFile && multipart?.files.get(route.def.bodyFile.name)?.id;
            else value = source.value;
            if (value === undefined && (source.from === "body" || source.from === "part") && variable.readType && getNullableType(variable.type) !== variable.type) value = {};
            if (variable.readType) value = normalizeInput(value, variable.type, variable.readType, source.from === "part" ? source.name : "", problems);
            if (value !== undefined) variables[variable.name] = value;
            const found = coercionProblems(value ?? null, variable.type, source.from === "part" || source.from === "path" ? source.name : variable.name, source.from === "body");
            // Name a JSON part's fields with the part, as the unknown-key problems above do.
            if (source.from === "part") for (const problem of found) if (problem.identifier && problem.identifier !== source.name) problem.identifier = `${source.name}.${problem.identifier}`;
            problems.push(...found);
          }
          throwIfProblems(problems);

          const result = (await execute({ schema, document: route.document, variableValues: variables, contextValue })) as ExecutionResult;
          // Released before answering: a client sending its next page on the answer must find the target free.
          await release?.();
          release = undefined;
          if (result.errors?.length) {
            send(res, info, result.errors[0]);
            return;
          }
          const data = result.data?.[route.def.field];
          if (route.def.download) {
            const spec = route.def.download;
            const key = spec.storageKey(data);
            const size = await storage.size(key);
            if (size === undefined) throw new Error(`Stored bytes ${key} are missing`);
            res.status(200).set({
              "Content-Type": spec.contentType?.(data) ?? "application/octet-stream",
              "Content-Length": String(size),
              "Content-Disposition": contentDisposition(spec.fileName(data)),
            });
            await pipeline(storage.read(key), res);
            return;
          }
          if (route.status === 204) {
            res.status(204).end();
            return;
          }
          res.status(route.status).json(stripNulls(data));
        } finally {
          await multipart?.discard();
        }
      } finally {
        await release?.();
      }
    } catch (error) {
      if (res.headersSent) {
        // A download failed midway: the status is gone, only cutting the connection tells the client.
        // A client that went away (closed the connection, or the server's own shutdown did) is no failure.
        const gone = (error as { code?: string })?.code === "ERR_STREAM_PREMATURE_CLOSE" || res.destroyed;
        logger[gone ? "info" : "error"](gone ? "REST download ended: the connection closed" : "REST download failed after the headers were sent", { error, path: info.path, requestId: info.requestId });
        res.destroy();
        return;
      }
      // A body left unread (refused before or while reading it) is not drained: the connection ends.
      if (error instanceof PayloadTooLargeError || !req.complete) res.set("Connection", "close");
      if (error && typeof error === "object" && "extensions" in error && (error as AppError).extensions?.code) {
        send(res, info, error as AppError);
      } else {
        logger.error("REST request failed", { error, path: info.path, requestId: info.requestId });
        send(res, info, { message: "Unexpected error", extensions: {} });
      }
    }
  };
}
