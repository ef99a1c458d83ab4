import type { RequestContext, UploadObserver } from "../src/app-types.js";

/**
 * The REST layer is a table of these entries. Each names the GraphQL root field it runs and where
 * every argument comes from; documents, permissions and the OpenAPI description are derived from
 * the schema at start-up (rest/compile.ts).
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export type ArgSource =
  | { from: "path"; name: string }
  | { from: "query"; name: string }
  | { from: "body" }
  | { from: "bodyKey"; name: string }
  | { from: "value"; value: unknown }
  /** A JSON part of a multipart upload (routes with `upload`). */
  | { from: "part"; name: string }
  /** The id of the file part's bytes, staged in storage before the mutation runs (routes with `upload`). */
  | { from: "file"; name: string }
  /** The id of the whole request body, staged in storage before the mutation runs (routes with `bodyFile`). */
  | { from: "bodyFile" };

/**
 * A multipart upload route (design notes 6): the router streams the file part into storage, then
 * runs the mutation with the JSON parts and the staged file's id; the mutation's result is the body.
 */
export interface UploadSpec {
  /** Names of the small JSON parts (sent without a filename). */
  jsonParts: string[];
  /** Name of the file part (sent with a filename). */
  filePart: string;
  /** Byte limit of the file part; default MAX_UPLOAD_BYTES (8 GiB). */
  maxBytes?: number;
  /**
   * A tighter limit known only from the target entity (a chunked file's part cannot be larger than
   * what is left of the declared size), so that bytes that will be refused anyway are not staged
   * first. Called once the permission is checked and before the body is read (it may refuse the
   * request, e.g. 404 for an unknown id), with the path parameters; the function it returns gets the
   * JSON parts that arrived before the file part (possibly none) when the file part starts.
   */
  limit?: (ctx: RequestContext, params: Record<string, string>) => Promise<(json: Record<string, unknown>) => UploadLimit>;
  /**
   * Reads the file part's bytes while they are stored (the file manager inspects new files as they
   * arrive); the staged upload carries it (`observer`) to the mutation, which awaits its result
   * (the mutation starts once the bytes are stored, the reading's end may still be running). Null: not this file.
   */
  observe?: (ctx: RequestContext, file: ObservedFile) => UploadObserver | null;
}

export interface ObservedFile {
  fileName: string;
  contentType: string;
  /** The request's Content-Length: the file part's size plus a little, when the client sent it. */
  declaredBytes: number | null;
}

export interface UploadLimit {
  maxBytes: number;
  /** The error (a 413) for a file part above `maxBytes`. */
  tooLarge: () => Error;
}

/**
 * A route whose request body is too large to parse in one piece (e.g. a page of a million rows):
 * the router streams the raw body into storage, within the JSON body limit, and the mutation reads
 * it back as a stream. The wire is unchanged: the client sends an ordinary JSON body.
 */
export interface BodyFileSpec {
  /** Name under which the staged body is taken (takeUpload). */
  name: string;
  /** JSON schema of the body for the OpenAPI description. */
  schema: Record<string, unknown>;
  /**
   * Claims the target for the whole request before a byte of the body is read (e.g. one page
   * upload at a time per JSON table, however slowly it arrives); may refuse (404, 409). The
   * function it returns releases the claim once the mutation has run.
   */
  claim?: (ctx: RequestContext, params: Record<string, string>) => Promise<() => Promise<void>>;
}

/**
 * A download route: the query checks access and returns the file's description; the router then
 * streams the bytes from storage as application/octet-stream, attachment named `fileName`.
 */
export interface DownloadSpec<T = any> {
  storageKey(data: T): string;
  fileName(data: T): string;
  contentType?(data: T): string;
}

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI-style template under /api/v1, e.g. /organizations/{organizationId}. */
  path: string;
  operation: "query" | "mutation";
  /** Root field of the operation. */
  field: string;
  /** GraphQL argument name -> source. Path parameters named like arguments are wired automatically. */
  args?: Record<string, ArgSource>;
  /** Success status (default 200; 204 sends no body). */
  status?: number;
  summary: string;
  tag: string;
  deprecated?: boolean;
  upload?: UploadSpec;
  bodyFile?: BodyFileSpec;
  download?: DownloadSpec;
  /**
   * GraphQL type whose read model the body is checked against (its keys missing from the input are
   * read-only and dropped); default the field's return type. Create/update routes answering with
   * something else (an async result) name their entity, so a read body is accepted back (spec 2.1).
   */
  readModel?: string;
}

export function route(def: RouteDef): RouteDef {
  return def;
}

export type CrudOp = "create" | "read" | "update" | "delete" | "query";

function lowerFirst(text: string): string {
  return text[0].toLowerCase() + text.slice(1);
}

/**
 * The standard endpoint model (spec 4.1) for one entity: POST /x, GET/PUT/DELETE /x/{id},
 * POST /x/query, over the fields `x`, `xs`, `createX`, `updateX`, `deleteX`.
 */
export function crudRoutes(options: { resource: string; idParam: string; entity: string; tag: string; plural?: string; ops?: CrudOp[]; readModel?: string }): RouteDef[] {
  const { resource, idParam, entity, tag } = options;
  const readModel = options.readModel ?? entity;
  const single = lowerFirst(entity);
  const plural = options.plural ?? `${single}s`;
  const ops = new Set<CrudOp>(options.ops ?? ["create", "read", "update", "delete", "query"]);
  const item = `/${resource}/{${idParam}}`;
  const id: ArgSource = { from: "path", name: idParam };
  const routes: RouteDef[] = [];
  if (ops.has("create")) routes.push({ method: "POST", path: `/${resource}`, operation: "mutation", field: `create${entity}`, args: { input: { from: "body" } }, readModel, summary: `Create a ${entity}`, tag });
  if (ops.has("read")) routes.push({ method: "GET", path: item, operation: "query", field: single, args: { id }, summary: `Read a ${entity}`, tag });
  if (ops.has("update")) routes.push({ method: "PUT", path: item, operation: "mutation", field: `update${entity}`, args: { id, input: { from: "body" } }, readModel, summary: `Update a ${entity} (send the latest version)`, tag });
  if (ops.has("delete")) routes.push({ method: "DELETE", path: item, operation: "mutation", field: `delete${entity}`, args: { id }, status: 204, summary: `Delete a ${entity}`, tag });
  if (ops.has("query")) routes.push({ method: "POST", path: `/${resource}/query`, operation: "query", field: plural, args: queryArgs(), summary: `Query ${entity} entities with the filter language; page and size in the query string`, tag });
  return routes;
}

/** Arguments of a /query route: the body is the filter, paging and sorting from the query string. */
export function queryArgs(): Record<string, ArgSource> {
  return { filter: { from: "body" }, page: { from: "query", name: "page" }, size: { from: "query", name: "size" }, sort: { from: "query", name: "sort" } };
}
