import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, interceptors, request, type Dispatcher } from "undici";
import { joinCsvChunks } from "./warehouse-csv.js";

/**
 * A client of a Databricks SQL warehouse over its documented REST protocol: the SQL Statement
 * Execution API 2.0 (`POST /api/2.0/sql/statements`, `GET .../statements/{id}`, `GET
 * .../statements/{id}/result/chunks/{index}`, `POST .../cancel`). Small metadata results (discovery,
 * connection tests) are read INLINE as JSON_ARRAY; table reads use EXTERNAL_LINKS with CSV, whose
 * chunks are downloaded from presigned URLs as a byte stream (see `csvResult`). Authenticated by a
 * personal access token or by OAuth machine-to-machine
 * (client credentials at `POST /oidc/v1/token`, cached until shortly before expiry and renewed once
 * when the warehouse answers 401). Every request is bounded by `timeoutMs`; failures become a
 * `WarehouseError` whose message is written for the user (recorded in test results and import
 * tasks), never an unexpected error.
 */
export interface WarehouseCredentials {
  authType: string;
  host: string;
  httpPath: string;
  port?: number | null;
  accessToken?: string | null;
  clientId?: string | null;
  clientSecret?: string | null;
}

export interface WarehouseOptions {
  timeoutMs: number;
  /** Extra trusted certificate authorities (PEM). */
  caFile?: string;
  /** How long one statement may run in all (polling included). */
  statementTimeoutMs?: number;
}

export type WarehouseErrorKind = "AUTHENTICATION" | "UNKNOWN_WAREHOUSE" | "UNREACHABLE" | "TIMEOUT" | "STATEMENT_FAILED" | "PROTOCOL";

export class WarehouseError extends Error {
  constructor(
    readonly kind: WarehouseErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "WarehouseError";
  }
}

export interface ResultColumn {
  name: string;
  typeText: string;
  typeName: string;
  position: number;
  precision: number | null;
  scale: number | null;
}

interface StatementResponse {
  statement_id: string;
  status: { state: string; error?: { error_code?: string; message?: string } };
  manifest?: {
    format?: string;
    schema?: { columns?: Array<{ name: string; type_text?: string; type_name?: string; position?: number; type_precision?: number; type_scale?: number }> };
    total_chunk_count?: number;
    total_row_count?: number;
    chunks?: Array<{ chunk_index: number; row_offset?: number; row_count?: number }>;
  };
  result?: ChunkResponse;
}

interface ChunkResponse {
  chunk_index?: number;
  row_count?: number;
  data_array?: Array<Array<string | null>>;
  next_chunk_index?: number;
  external_links?: ExternalLink[];
}

/** One chunk's presigned download URL (EXTERNAL_LINKS), valid until `expiration` (at most 15 minutes). */
interface ExternalLink {
  chunk_index: number;
  row_offset?: number;
  row_count?: number;
  external_link: string;
  expiration?: string;
  /** Headers the download must carry (e.g. a decryption key); never the warehouse's bearer token. */
  http_headers?: Record<string, string>;
}

/** A link this close to its expiration is re-requested rather than used: a chunk's download may take a while to start. */
const LINK_MARGIN_MS = 30_000;

/**
 * GETs (status polls, result chunks) are idempotent and retried a few times when a kept-alive
 * socket turns out closed (the warehouse or a proxy dropped it while COPY was draining the previous
 * chunk) or the warehouse asks to come back later (429/503, honouring Retry-After). POSTs are not:
 * a statement must not run twice, and a refused connection is reported at once.
 */
const RETRY = { methods: ["GET" as const], maxRetries: 3, minTimeout: 250, timeoutFactor: 2, maxTimeout: 5000, errorCodes: ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"], statusCodes: [429, 502, 503, 504], throwOnError: false };

const agents = new Map<string, Dispatcher>();
function agentFor(caFile: string | undefined, timeoutMs: number): Dispatcher {
  const key = `${caFile ?? ""}|${timeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    const ca = caFile ? [...rootCertificates, readFileSync(caFile, "utf8")] : undefined;
    agent = new Agent({ connect: { ca, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }).compose(interceptors.retry(RETRY));
    agents.set(key, agent);
  }
  return agent;
}

const tokens = new Map<string, { token: string; expiresAt: number }>();

/** `/sql/1.0/warehouses/<id>` (or the older `/sql/1.0/endpoints/<id>`) -> `<id>`. */
export function warehouseIdOf(httpPath: string): string | null {
  const match = /\/(?:warehouses|endpoints)\/([A-Za-z0-9_-]+)\/?$/.exec(httpPath.trim());
  return match ? match[1] : null;
}

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELED", "CLOSED"]);

export class WarehouseClient {
  private readonly base: string;
  private readonly dispatcher: Dispatcher;
  private readonly warehouseId: string;

  constructor(
    private readonly credentials: WarehouseCredentials,
    private readonly options: WarehouseOptions,
  ) {
    const id = warehouseIdOf(credentials.httpPath);
    if (!id) throw new WarehouseError("UNKNOWN_WAREHOUSE", `httpPath ${credentials.httpPath} does not name a SQL warehouse (expected /sql/1.0/warehouses/<id>)`);
    this.warehouseId = id;
    this.base = `https://${credentials.host}${credentials.port && credentials.port !== 443 ? `:${credentials.port}` : ""}`;
    this.dispatcher = agentFor(options.caFile, options.timeoutMs);
  }

  private async call(method: "GET" | "POST", path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; json: any }> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const response = await request(`${this.base}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": typeof body === "string" ? "application/x-www-form-urlencoded" : "application/json" }), ...headers },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const text = await response.body.text();
      let json: any = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = { message: text.slice(0, 200) };
      }
      return { status: response.statusCode, json };
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      throw this.transportError(error);
    }
  }

  private transportError(error: unknown): WarehouseError {
    const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e.code ?? e.cause?.code ?? "";
    if (e.name === "TimeoutError" || e.name === "AbortError" || /TIMEOUT/.test(code)) return new WarehouseError("TIMEOUT", `The warehouse at ${this.credentials.host} did not answer within ${Math.round(this.options.timeoutMs / 1000)} s`);
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return new WarehouseError("UNREACHABLE", `TLS failure connecting to ${this.credentials.host}: ${e.message ?? code}`);
    return new WarehouseError("UNREACHABLE", `Cannot reach ${this.credentials.host}${this.credentials.port ? `:${this.credentials.port}` : ""}: ${code || e.message || "connection failed"}`);
  }

  private tokenKey(): string {
    return `${this.base}|${this.credentials.clientId}|${this.credentials.clientSecret}`;
  }

  private async bearer(signal?: AbortSignal, renew = false): Promise<string> {
    if (this.credentials.authType === "PAT") return this.credentials.accessToken ?? "";
    const key = this.tokenKey();
    const cached = tokens.get(key);
    if (cached && !renew && cached.expiresAt > Date.now()) return cached.token;
    const basic = Buffer.from(`${this.credentials.clientId}:${this.credentials.clientSecret}`).toString("base64");
    const { status, json } = await this.call("POST", "/oidc/v1/token", "grant_type=client_credentials&scope=all-apis", { authorization: `Basic ${basic}` }, signal);
    if (status === 400 || status === 401 || status === 403) throw new WarehouseError("AUTHENTICATION", `OAuth token request refused (${status}): ${json?.error_description ?? json?.error ?? "invalid client credentials"}`);
    if (status !== 200 || typeof json?.access_token !== "string") throw new WarehouseError("PROTOCOL", `OAuth token endpoint answered ${status}`);
    const lifetime = Number(json.expires_in ?? 3600) * 1000;
    // Renew a little before the warehouse would refuse the token.
    tokens.set(key, { token: json.access_token, expiresAt: Date.now() + Math.max(0, lifetime - Math.min(60_000, lifetime / 10)) });
    return json.access_token;
  }

  /** One authenticated API call; an OAuth token the warehouse refuses is renewed once. */
  private async api(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<any> {
    let token = await this.bearer(signal);
    let { status, json } = await this.call(method, path, body, { authorization: `Bearer ${token}` }, signal);
    if (status === 401 && this.credentials.authType === "OAUTH_M2M") {
      token = await this.bearer(signal, true);
      ({ status, json } = await this.call(method, path, body, { authorization: `Bearer ${token}` }, signal));
    }
    if (status === 401 || status === 403) throw new WarehouseError("AUTHENTICATION", `The warehouse refused the credentials (${status}${json?.error_code ? ` ${json.error_code}` : ""}): ${json?.message ?? "unauthenticated"}`);
    if (status === 404 || json?.error_code === "RESOURCE_DOES_NOT_EXIST") throw new WarehouseError("UNKNOWN_WAREHOUSE", `Unknown SQL warehouse ${this.warehouseId}: ${json?.message ?? "not found"}`);
    if (status >= 400) throw new WarehouseError("STATEMENT_FAILED", `The warehouse answered ${status}${json?.error_code ? ` ${json.error_code}` : ""}: ${json?.message ?? ""}`.trim());
    return json;
  }

  /**
   * Runs a statement to a terminal state (polling while it runs); returns its manifest and first
   * chunk. INLINE (JSON_ARRAY) is capped by Databricks at 25 MiB per statement: metadata only.
   */
  async execute(
    statement: string,
    signal?: AbortSignal,
    result: { disposition: "INLINE"; format: "JSON_ARRAY" } | { disposition: "EXTERNAL_LINKS"; format: "CSV" } = { disposition: "INLINE", format: "JSON_ARRAY" },
  ): Promise<{ statementId: string; columns: ResultColumn[]; totalChunkCount: number; totalRowCount: number; chunkRows: Map<number, number>; first: ChunkResponse | undefined }> {
    const deadline = Date.now() + (this.options.statementTimeoutMs ?? this.options.timeoutMs * 4);
    let response: StatementResponse = await this.api(
      "POST",
      "/api/2.0/sql/statements",
      { statement, warehouse_id: this.warehouseId, wait_timeout: "10s", on_wait_timeout: "CONTINUE", ...result },
      signal,
    );
    let wait = 100;
    while (!TERMINAL.has(response.status?.state)) {
      if (Date.now() > deadline) {
        await this.api("POST", `/api/2.0/sql/statements/${response.statement_id}/cancel`, {}, signal).catch(() => undefined);
        throw new WarehouseError("TIMEOUT", `The statement did not finish within ${Math.round((this.options.statementTimeoutMs ?? this.options.timeoutMs * 4) / 1000)} s and was cancelled`);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 2000);
      response = await this.api("GET", `/api/2.0/sql/statements/${response.statement_id}`, undefined, signal);
    }
    if (response.status.state !== "SUCCEEDED") {
      const error = response.status.error;
      throw new WarehouseError("STATEMENT_FAILED", `Statement ${response.status.state}${error?.error_code ? ` (${error.error_code})` : ""}: ${error?.message ?? "no reason given"}`);
    }
    const columns = (response.manifest?.schema?.columns ?? []).map((c, i) => ({
      name: c.name,
      typeText: c.type_text ?? c.type_name ?? "STRING",
      typeName: c.type_name ?? c.type_text ?? "STRING",
      position: c.position ?? i,
      precision: c.type_precision ?? null,
      scale: c.type_scale ?? null,
    }));
    const chunkRows = new Map((response.manifest?.chunks ?? []).map((c) => [c.chunk_index, c.row_count ?? 0]));
    return { statementId: response.statement_id, columns, totalChunkCount: response.manifest?.total_chunk_count ?? 0, totalRowCount: response.manifest?.total_row_count ?? 0, chunkRows, first: response.result };
  }

  /**
   * A table-sized result as CSV bytes (EXTERNAL_LINKS, format CSV): the statement runs to completion
   * first (so its failure surfaces before anything is written), then `body` downloads chunk after
   * chunk from the presigned links, yielding the bytes as they arrive. Nothing is parsed: the caller
   * streams them into `COPY ... (FORMAT csv, NULL 'null')`, and since `body` is pulled, a slow
   * consumer pauses the download (backpressure). The header row, which only the first chunk carries,
   * is removed, and every chunk ends with a line break, so the whole is one header-less CSV.
   * `progress` hears the rows of the chunks finished so far.
   */
  async csvResult(statement: string, signal?: AbortSignal, progress?: (rows: number, total: number) => void): Promise<{ columns: ResultColumn[]; totalRowCount: number; body: AsyncGenerator<Buffer> }> {
    const executed = await this.execute(statement, signal, { disposition: "EXTERNAL_LINKS", format: "CSV" });
    const links = new Map<number, ExternalLink>();
    for (const link of executed.first?.external_links ?? []) links.set(link.chunk_index, link);
    const client = this;
    async function* downloads() {
      let rows = 0;
      for (let index = 0; index < executed.totalChunkCount; index++) {
        yield client.download(executed.statementId, index, links, signal);
        rows += executed.chunkRows.get(index) ?? links.get(index)?.row_count ?? 0;
        links.delete(index);
        progress?.(rows, executed.totalRowCount);
      }
    }
    return { columns: executed.columns, totalRowCount: executed.totalRowCount, body: joinCsvChunks(executed.columns.map((c) => c.name), downloads()) };
  }

  /** A chunk's current link: the one known, unless it is (nearly) expired, else re-requested from the warehouse. */
  private async linkFor(statementId: string, index: number, links: Map<number, ExternalLink>, signal?: AbortSignal): Promise<ExternalLink> {
    const known = links.get(index);
    if (known && (!known.expiration || Date.parse(known.expiration) - LINK_MARGIN_MS > Date.now())) return known;
    const chunk: ChunkResponse = await this.api("GET", `/api/2.0/sql/statements/${statementId}/result/chunks/${index}`, undefined, signal);
    for (const link of chunk.external_links ?? []) links.set(link.chunk_index, link);
    const fresh = links.get(index);
    if (!fresh) throw new WarehouseError("PROTOCOL", `The warehouse gave no external link for result chunk ${index}`);
    return fresh;
  }

  /**
   * One chunk's bytes from its presigned URL. The URL carries its own credential: the request has
   * no Authorization header (cloud storage refuses a second auth mechanism, and the bearer token
   * must not leave the workspace). Storage refusing a link the warehouse still called valid
   * (expired early, clock skew) gets the link re-requested once. Transient failures are retried by
   * the agent's retry policy, as any GET. The URL is never put in an error message (it is a credential).
   */
  private async *download(statementId: string, index: number, links: Map<number, ExternalLink>, signal?: AbortSignal): AsyncGenerator<Buffer> {
    for (let attempt = 0; ; attempt++) {
      const link = await this.linkFor(statementId, index, links, signal);
      let response: Dispatcher.ResponseData;
      try {
        response = await request(link.external_link, { method: "GET", dispatcher: this.dispatcher, headers: { ...(link.http_headers ?? {}) }, signal });
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        const e = error as { code?: string; message?: string; cause?: { code?: string } };
        throw new WarehouseError("UNREACHABLE", `Downloading result chunk ${index} failed: ${e.code ?? e.cause?.code ?? e.message ?? "connection failed"}`);
      }
      if (response.statusCode === 200) {
        for await (const piece of response.body) yield piece as Buffer;
        return;
      }
      const text = (await response.body.text()).slice(0, 300);
      if (attempt === 0 && (response.statusCode === 403 || response.statusCode === 401 || response.statusCode === 400)) {
        links.delete(index);
        continue;
      }
      throw new WarehouseError("PROTOCOL", `Downloading result chunk ${index} answered ${response.statusCode}: ${/<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text}`);
    }
  }

  /** Every row of a small metadata result (connection test, discovery): INLINE JSON_ARRAY, chunks followed by next_chunk_index. */
  async rows(statement: string, signal?: AbortSignal): Promise<{ columns: ResultColumn[]; rows: Array<Array<string | null>> }> {
    const { statementId, columns, first } = await this.execute(statement, signal);
    const rows: Array<Array<string | null>> = [];
    for (let chunk = first; chunk; ) {
      rows.push(...(chunk.data_array ?? []));
      if (chunk.next_chunk_index === undefined || chunk.next_chunk_index === null) break;
      chunk = await this.api("GET", `/api/2.0/sql/statements/${statementId}/result/chunks/${chunk.next_chunk_index}`, undefined, signal);
    }
    return { columns, rows };
  }
}
