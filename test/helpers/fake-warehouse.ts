import { execFileSync } from "node:child_process";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A Databricks SQL warehouse on loopback HTTPS, speaking the documented SQL Statement Execution
 * API 2.0 (POST /api/2.0/sql/statements with warehouse_id, wait_timeout, on_wait_timeout,
 * disposition and format; GET /statements/{id}; GET /statements/{id}/result/chunks/{n};
 * POST /statements/{id}/cancel) and the OAuth M2M token endpoint (POST /oidc/v1/token, client
 * credentials in Basic auth), over a few in-memory tables. Results are split into chunks of
 * `chunkRows`.
 *
 * - `INLINE` + `JSON_ARRAY`: each chunk's rows in `data_array` (values as JSON strings or null),
 *   chained by next_chunk_index.
 * - `EXTERNAL_LINKS` + `CSV`: the manifest lists the chunks; the statement's `result` and each
 *   `GET .../result/chunks/{n}` answer `external_links` with a presigned-style `external_link` (on
 *   this same server, under /storage/, signed with an HMAC of the statement, chunk and expiry) and
 *   its `expiration`. Like cloud storage, a download carrying an Authorization header is refused
 *   (400), as is one past its expiry or with a bad signature (403, S3-style XML error). Chunks are
 *   RFC 4180 CSV, values in their JSON_ARRAY string form, SQL NULL as the bare word null, the header
 *   row in the first chunk only, streamed as generated (with backpressure).
 *
 * Its certificate is self-signed, generated here; the server under test trusts it through
 * WAREHOUSE_CA_FILE (`caFile`).
 */
export interface FakeColumn {
  name: string;
  type: string; // data_type, e.g. STRING, DECIMAL, ARRAY
  fullType: string; // full_data_type, e.g. decimal(18,2)
  nullable: boolean;
  comment?: string;
}
export interface FakeTable {
  columns: FakeColumn[];
  rowCount: number;
  row(i: number): Array<string | null>;
  /** Answer statements on this table only after this many ms (PENDING, then RUNNING, then SUCCEEDED). */
  delayMs?: number;
  /** Never answer the POST (the client's timeout must fire). */
  hang?: boolean;
  /** The statement fails with this error. */
  fail?: { error_code: string; message: string };
  /** Rows per result chunk for statements on this table (default: the warehouse's `chunkRows`). */
  chunkRows?: number;
  /** CSV line end (default "\n") and whether a chunk's last row has one (default true). */
  csvLineEnd?: "\n" | "\r\n";
  csvFinalLineBreak?: boolean;
}

interface Statement {
  id: string;
  readyAt: number;
  columns: FakeColumn[] | null;
  rowCount: number;
  row: (i: number) => Array<string | null>;
  chunkRows?: number;
  error?: { error_code: string; message: string };
  canceled?: boolean;
  disposition: string;
  format: string;
  csvLineEnd?: "\n" | "\r\n";
  csvFinalLineBreak?: boolean;
}

export class FakeWarehouse {
  readonly warehouseId = "wh0123456789abcd";
  readonly accessToken = `dapi${randomBytes(16).toString("hex")}`;
  readonly clientId = "svc-principal-1";
  readonly clientSecret = `dose${randomBytes(16).toString("hex")}`;
  readonly tables = new Map<string, FakeTable>();
  chunkRows = 1000;
  tokenLifetimeSeconds = 3600;
  /** Counters the tests read. */
  tokenRequests = 0;
  statementsPosted: string[] = [];
  /** GET .../result/chunks/{n} requests received (dropped ones included). */
  chunkRequests = 0;
  /** The next this-many chunk requests get their connection closed without an answer, as an idle socket dropped by a proxy. */
  dropChunkRequests = 0;
  /** Every statement posted with its disposition and format. */
  posted: Array<{ statement: string; disposition: string; format: string }> = [];
  /** INLINE results larger than this abort the statement, as Databricks does at 25 MiB. */
  inlineLimitBytes = 25 * 1024 * 1024;
  /** How long an external link is valid (Databricks: at most 15 minutes). */
  linkLifetimeMs = 15 * 60_000;
  /** The next this-many external links are issued already expired (their `expiration` in the past). */
  expireNextLinks = 0;
  /** The next this-many external links advertise a valid `expiration` but storage refuses them as expired (clock skew). */
  revokeNextLinks = 0;
  /** The next this-many downloads get their connection closed without an answer. */
  dropDownloads = 0;
  /** Downloads of external links: served, refused for carrying an Authorization header, refused as expired. */
  downloads = 0;
  downloadsWithAuthorization = 0;
  expiredDownloads = 0;
  private readonly linkSecret = randomBytes(32);
  private validTokens = new Set<string>();
  private statements = new Map<string, Statement>();
  private server!: Server;
  private dir!: string;
  port = 0;
  caFile = "";

  async start(): Promise<this> {
    this.dir = mkdtempSync(join(tmpdir(), "fake-warehouse-"));
    const key = join(this.dir, "key.pem");
    const cert = join(this.dir, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"], { stdio: "ignore" });
    this.caFile = cert;
    this.server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      this.handle(req, res).catch((error) => this.send(res, 500, { error_code: "INTERNAL_ERROR", message: String(error) }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Makes every issued OAuth token invalid, as when it expires. */
  expireTokens(): void {
    this.validTokens.clear();
  }

  private send(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private async body(req: IncomingMessage): Promise<string> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    return Buffer.concat(parts).toString("utf8");
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "https://localhost");
    const text = await this.body(req);
    if (req.method === "POST" && url.pathname === "/oidc/v1/token") {
      this.tokenRequests += 1;
      const [scheme, encoded] = (req.headers.authorization ?? "").split(" ");
      const [id, secret] = Buffer.from(encoded ?? "", "base64").toString().split(":");
      const form = new URLSearchParams(text);
      if (scheme !== "Basic" || id !== this.clientId || secret !== this.clientSecret || form.get("grant_type") !== "client_credentials") {
        return this.send(res, 401, { error: "invalid_client", error_description: "Client authentication failed" });
      }
      const token = `eyJ${randomBytes(24).toString("hex")}`;
      this.validTokens.add(token);
      return this.send(res, 200, { access_token: token, token_type: "Bearer", expires_in: this.tokenLifetimeSeconds, scope: form.get("scope") ?? "all-apis" });
    }
    if (req.method === "GET" && url.pathname.startsWith("/storage/")) return this.download(req, url, res);
    if (!url.pathname.startsWith("/api/2.0/sql/statements")) return this.send(res, 404, { error_code: "ENDPOINT_NOT_FOUND", message: `No API found for '${req.method} ${url.pathname}'` });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!bearer || (bearer !== this.accessToken && !this.validTokens.has(bearer))) {
      return this.send(res, 401, { error_code: "UNAUTHENTICATED", message: "Invalid access token." });
    }
    const path = url.pathname.slice("/api/2.0/sql/statements".length);
    if (req.method === "POST" && (path === "" || path === "/")) return this.post(JSON.parse(text), res);
    const chunk = /^\/([^/]+)\/result\/chunks\/(\d+)$/.exec(path);
    if (req.method === "GET" && chunk) {
      this.chunkRequests += 1;
      if (this.dropChunkRequests > 0) {
        this.dropChunkRequests -= 1;
        req.socket.destroy();
        return;
      }
      const statement = this.statements.get(chunk[1]);
      if (!statement) return this.send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: "Statement not found" });
      if (Number(chunk[2]) >= this.chunkCount(statement)) return this.send(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: `Chunk index ${chunk[2]} is out of range` });
      return this.send(res, 200, statement.disposition === "EXTERNAL_LINKS" ? { external_links: [this.link(statement, Number(chunk[2]))] } : this.chunk(statement, Number(chunk[2])));
    }
    const cancel = /^\/([^/]+)\/cancel$/.exec(path);
    if (req.method === "POST" && cancel) {
      const statement = this.statements.get(cancel[1]);
      if (statement) statement.canceled = true;
      return this.send(res, 200, {});
    }
    const get = /^\/([^/]+)$/.exec(path);
    if (req.method === "GET" && get) {
      const statement = this.statements.get(get[1]);
      if (!statement) return this.send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: "Statement not found" });
      return this.send(res, 200, this.response(statement));
    }
    return this.send(res, 404, { error_code: "ENDPOINT_NOT_FOUND", message: "not found" });
  }

  private post(body: { statement: string; warehouse_id: string; wait_timeout?: string; disposition?: string; format?: string }, res: ServerResponse) {
    if (body.warehouse_id !== this.warehouseId) return this.send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: `SQL warehouse ${body.warehouse_id} does not exist.` });
    const disposition = body.disposition ?? "INLINE";
    const format = body.format ?? "JSON_ARRAY";
    if (!((disposition === "INLINE" && format === "JSON_ARRAY") || (disposition === "EXTERNAL_LINKS" && format === "CSV"))) {
      return this.send(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: `This fake serves INLINE JSON_ARRAY and EXTERNAL_LINKS CSV, not ${disposition} ${format}` });
    }
    this.statementsPosted.push(body.statement);
    this.posted.push({ statement: body.statement, disposition, format });
    const id = `01ef${randomBytes(12).toString("hex")}`;
    const planned = this.plan(id, body.statement.trim());
    if (planned === "hang") return; // never answers: the client's timeout must fire
    const statement: Statement = { ...planned, disposition, format };
    if (disposition === "INLINE" && statement.columns && !statement.error && this.inlineBytesExceeded(statement)) {
      statement.error = { error_code: "BAD_REQUEST", message: `Inline byte limit exceeded: statements executed with disposition=INLINE can have a result of at most ${this.inlineLimitBytes} bytes; use disposition=EXTERNAL_LINKS for larger results.` };
    }
    this.statements.set(id, statement);
    return this.send(res, 200, this.response(statement));
  }

  private plan(id: string, sql: string): Omit<Statement, "disposition" | "format"> | "hang" {
    const base = { id, readyAt: Date.now(), rowCount: 0, row: () => [] as Array<string | null> };
    if (/^SELECT 1$/i.test(sql)) return { ...base, columns: [{ name: "1", type: "INT", fullType: "int", nullable: false }], rowCount: 1, row: () => ["1"] };
    if (/FROM system\.information_schema\.columns/i.test(sql)) {
      const rows: Array<Array<string | null>> = [];
      for (const [tableId, table] of [...this.tables].sort(([a], [b]) => a.localeCompare(b))) {
        const [catalog, schema, name] = tableId.split(".");
        table.columns.forEach((c, i) => rows.push([catalog, schema, name, c.name, c.type, c.fullType, c.nullable ? "YES" : "NO", c.comment ?? null, String(i + 1)]));
      }
      const names = ["table_catalog", "table_schema", "table_name", "column_name", "data_type", "full_data_type", "is_nullable", "comment", "ordinal_position"];
      return { ...base, columns: names.map((n) => ({ name: n, type: n === "ordinal_position" ? "INT" : "STRING", fullType: "string", nullable: true })), rowCount: rows.length, row: (i) => rows[i] };
    }
    const select = /^SELECT (.+) FROM (`[^`]+`\.`[^`]+`\.`[^`]+`)(?: ORDER BY (.+))?$/i.exec(sql);
    if (!select) return { ...base, columns: null, error: { error_code: "PARSE_SYNTAX_ERROR", message: `[PARSE_SYNTAX_ERROR] Syntax error in: ${sql.slice(0, 80)}` } };
    const tableId = select[2].replace(/`/g, "");
    const table = this.tables.get(tableId);
    if (!table) return { ...base, columns: null, error: { error_code: "TABLE_OR_VIEW_NOT_FOUND", message: `[TABLE_OR_VIEW_NOT_FOUND] The table or view ${select[2]} cannot be found.` } };
    if (table.hang) return "hang";
    if (table.fail) return { ...base, columns: null, error: table.fail };
    const wanted = select[1].split(",").map((c) => c.trim().replace(/^`|`$/g, ""));
    const positions = wanted.map((name) => table.columns.findIndex((c) => c.name === name));
    if (positions.includes(-1)) return { ...base, columns: null, error: { error_code: "UNRESOLVED_COLUMN", message: `[UNRESOLVED_COLUMN] ${wanted[positions.indexOf(-1)]}` } };
    let order: number[] | null = null;
    if (select[3]) {
      const [column, direction] = select[3].split(",")[0].trim().split(/\s+/);
      const at = table.columns.findIndex((c) => c.name === column.replace(/`/g, ""));
      order = Array.from({ length: table.rowCount }, (_v, i) => i);
      const key = (i: number) => table.row(i)[at] ?? "";
      order.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (direction?.toUpperCase() === "DESC" ? -1 : 1));
    }
    return {
      ...base,
      readyAt: Date.now() + (table.delayMs ?? 0),
      chunkRows: table.chunkRows,
      csvLineEnd: table.csvLineEnd,
      csvFinalLineBreak: table.csvFinalLineBreak,
      columns: positions.map((p) => table.columns[p]),
      rowCount: table.rowCount,
      row: (i) => {
        const full = table.row(order ? order[i] : i);
        return positions.map((p) => full[p]);
      },
    };
  }

  private state(statement: Statement): string {
    if (statement.canceled) return "CANCELED";
    if (Date.now() < statement.readyAt) return "RUNNING";
    return statement.error ? "FAILED" : "SUCCEEDED";
  }

  private response(statement: Statement) {
    const state = this.state(statement);
    const out: Record<string, unknown> = { statement_id: statement.id, status: { state, ...(state === "FAILED" ? { error: statement.error } : {}) } };
    if (state !== "SUCCEEDED" || !statement.columns) return out;
    const size = statement.chunkRows ?? this.chunkRows;
    const chunkCount = this.chunkCount(statement);
    out.manifest = {
      format: statement.format,
      schema: {
        column_count: statement.columns.length,
        columns: statement.columns.map((c, i) => {
          const decimal = /decimal\((\d+),(\d+)\)/.exec(c.fullType);
          return { name: c.name, type_text: c.fullType.toUpperCase(), type_name: c.type, position: i, ...(decimal ? { type_precision: Number(decimal[1]), type_scale: Number(decimal[2]) } : {}) };
        }),
      },
      total_chunk_count: chunkCount,
      chunks: Array.from({ length: chunkCount }, (_v, i) => ({ chunk_index: i, row_offset: i * size, row_count: Math.min(size, statement.rowCount - i * size) })),
      total_row_count: statement.rowCount,
      truncated: false,
    };
    if (chunkCount > 0) out.result = statement.disposition === "EXTERNAL_LINKS" ? { external_links: [this.link(statement, 0)] } : this.chunk(statement, 0);
    return out;
  }

  /** Whether the rows' JSON_ARRAY form outgrows `inlineLimitBytes` (counted until it does). */
  private inlineBytesExceeded(statement: Statement): boolean {
    let bytes = 0;
    for (let i = 0; i < statement.rowCount; i++) {
      bytes += Buffer.byteLength(JSON.stringify(statement.row(i))) + 1;
      if (bytes > this.inlineLimitBytes) return true;
    }
    return false;
  }

  private chunkCount(statement: Statement): number {
    return Math.ceil(statement.rowCount / (statement.chunkRows ?? this.chunkRows));
  }

  private signature(statementId: string, index: number, expires: number): string {
    return createHmac("sha256", this.linkSecret).update(`${statementId}/${index}/${expires}`).digest("hex");
  }

  /** An external link to chunk `index`, valid for `linkLifetimeMs` (unless the test asked for an expired or revoked one). */
  private link(statement: Statement, index: number) {
    const size = statement.chunkRows ?? this.chunkRows;
    const now = Date.now();
    let expires = now + this.linkLifetimeMs;
    let advertised = expires;
    if (this.expireNextLinks > 0) {
      this.expireNextLinks -= 1;
      expires = advertised = now - 1000;
    } else if (this.revokeNextLinks > 0) {
      this.revokeNextLinks -= 1;
      expires = now - 1000;
    }
    const last = index + 1 >= this.chunkCount(statement);
    return {
      chunk_index: index,
      row_offset: index * size,
      row_count: Math.min(size, statement.rowCount - index * size),
      external_link: `https://localhost:${this.port}/storage/${statement.id}/${index}?X-Amz-Expires=${expires}&X-Amz-Signature=${this.signature(statement.id, index, expires)}`,
      expiration: new Date(advertised).toISOString(),
      ...(last ? {} : { next_chunk_index: index + 1, next_chunk_internal_link: `/api/2.0/sql/statements/${statement.id}/result/chunks/${index + 1}` }),
    };
  }

  private storageError(res: ServerResponse, status: number, code: string, message: string) {
    res.writeHead(status, { "content-type": "application/xml" });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
  }

  /** GET /storage/{statement}/{chunk}?X-Amz-Expires&X-Amz-Signature: the chunk's CSV, streamed. */
  private async download(req: IncomingMessage, url: URL, res: ServerResponse) {
    if (this.dropDownloads > 0) {
      this.dropDownloads -= 1;
      req.socket.destroy();
      return;
    }
    if (req.headers.authorization) {
      this.downloadsWithAuthorization += 1;
      return this.storageError(res, 400, "InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified");
    }
    const [, , statementId, indexText] = url.pathname.split("/");
    const index = Number(indexText);
    const expires = Number(url.searchParams.get("X-Amz-Expires"));
    const given = Buffer.from(url.searchParams.get("X-Amz-Signature") ?? "", "hex");
    const wanted = Buffer.from(this.signature(statementId, index, expires), "hex");
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return this.storageError(res, 403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
    if (Date.now() > expires) {
      this.expiredDownloads += 1;
      return this.storageError(res, 403, "AccessDenied", "Request has expired");
    }
    const statement = this.statements.get(statementId);
    if (!statement || !statement.columns) return this.storageError(res, 404, "NoSuchKey", "The specified key does not exist.");
    this.downloads += 1;
    const eol = statement.csvLineEnd ?? "\n";
    const size = statement.chunkRows ?? this.chunkRows;
    const start = index * size;
    const end = Math.min(statement.rowCount, start + size);
    res.writeHead(200, { "content-type": "text/csv" });
    const lines: string[] = index === 0 ? [statement.columns.map((c) => csvField(c.name)).join(",")] : [];
    for (let i = start; i < end; i++) {
      lines.push(statement.row(i).map((v) => (v === null ? "null" : csvField(v))).join(","));
      if (lines.length >= 1000 || i === end - 1) {
        const text = lines.join(eol) + (i === end - 1 && statement.csvFinalLineBreak === false ? "" : eol);
        lines.length = 0;
        if (!res.write(text)) await new Promise((resolve) => res.once("drain", resolve));
        if (res.destroyed) return;
      }
    }
    if (lines.length > 0) res.write(lines.join(eol) + (statement.csvFinalLineBreak === false ? "" : eol));
    res.end();
  }

  private chunk(statement: Statement, index: number) {
    const size = statement.chunkRows ?? this.chunkRows;
    const start = index * size;
    const end = Math.min(statement.rowCount, start + size);
    const rows: Array<Array<string | null>> = [];
    for (let i = start; i < end; i++) rows.push(statement.row(i));
    const last = end >= statement.rowCount;
    return {
      chunk_index: index,
      row_offset: start,
      row_count: rows.length,
      data_array: rows,
      ...(last ? {} : { next_chunk_index: index + 1, next_chunk_internal_link: `/api/2.0/sql/statements/${statement.id}/result/chunks/${index + 1}` }),
    };
  }
}

/** RFC 4180: quoted (quotes doubled) when it holds a comma, quote or line break, or is empty (so it is not read as missing). */
function csvField(value: string): string {
  return value === "" || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A general ledger lines table: `count` rows with every type the discovery maps. */
export function ledgerTable(count: number): FakeTable {
  return {
    columns: [
      { name: "entry_id", type: "STRING", fullType: "string", nullable: false, comment: "Journal line id" },
      { name: "account", type: "STRING", fullType: "string", nullable: true },
      { name: "amount", type: "DECIMAL", fullType: "decimal(18,2)", nullable: false },
      { name: "posted", type: "DATE", fullType: "date", nullable: true },
      { name: "posted_at", type: "TIMESTAMP", fullType: "timestamp", nullable: true },
      { name: "line_no", type: "INT", fullType: "int", nullable: true },
      { name: "is_manual", type: "BOOLEAN", fullType: "boolean", nullable: true },
      { name: "batch", type: "BIGINT", fullType: "bigint", nullable: true },
      { name: "tags", type: "ARRAY", fullType: "array<string>", nullable: true },
    ],
    rowCount: count,
    row: (i) => [
      `JE-${String(i).padStart(7, "0")}`,
      i % 7 === 0 ? null : `${4000 + (i % 13)}`,
      `${(i % 2 ? -1 : 1) * (i * 37 % 100000)}.${String(i % 100).padStart(2, "0")}`,
      `2025-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`,
      `2025-03-0${(i % 9) + 1}T1${i % 10}:0${i % 6}:00.000Z`,
      String(i % 50),
      i % 3 === 0 ? "true" : "false",
      String(900719925474000 + i),
      JSON.stringify(["tag\t" + (i % 4), 'q"uote\\']),
    ],
  };
}
