import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { expect } from "vitest";

/**
 * Fuzzing settings: a fixed seed and a modest number of runs keep CI fast and repeatable;
 * `FUZZ_RUNS=500 FUZZ_SEED=$RANDOM npx vitest run test/robust` searches harder.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 1616);
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 0) || undefined;
export function fuzzParameters(defaultRuns: number): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: FUZZ_RUNS ?? defaultRuns, endOnFailure: true };
}

/** A test's time allowance for `defaultMs` of default runs, scaled up with FUZZ_RUNS. */
export function fuzzTimeout(defaultMs: number, defaultRuns = 4): number {
  return Math.max(60_000, FUZZ_RUNS ? (defaultMs * FUZZ_RUNS) / defaultRuns : defaultMs);
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
  ms: number;
}

/**
 * One HTTP request with exactly these bytes (fetch refuses or rewrites some: invalid UTF-8 is
 * fine for it, but header names, raw paths and truncated bodies are not). Fails after `timeoutMs`
 * ("never a hang").
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | string; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { ...(options.body !== undefined ? { "content-length": String(Buffer.byteLength(options.body)) } : {}), ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, ms: Date.now() - started });
        });
        res.on("error", reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${path}: no answer within ${options.timeoutMs ?? 15_000} ms`));
    }, options.timeoutMs ?? 15_000);
    req.on("error", (error) => {
      clearTimeout(timer);
      // The server may close the connection on a refused body it did not read: that is an answer too.
      if ((error as NodeJS.ErrnoException).code === "ECONNRESET" || (error as NodeJS.ErrnoException).code === "EPIPE") resolve({ status: 0, headers: {}, text: "", body: undefined, ms: Date.now() - started });
      else reject(error);
    });
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/**
 * What every answer to hostile input must be: not a 5xx, and an error in the spec's body
 * (ActionableErrorResponse) whose 400 problems name the field.
 */
export function expectWellFormedAnswer(response: RawResponse, what: string): void {
  const context = `${what} -> ${response.status} ${response.text.slice(0, 600)}`;
  expect(response.status, context).not.toBe(0);
  expect(response.status, context).toBeLessThan(500);
  if (response.status < 400) return;
  if (response.status === 431) return; // Node's own answer to oversized HTTP headers, before any route
  expect(response.body, context).toMatchObject({ status: response.status, problemCount: expect.any(Number), problems: expect.any(Array) });
  expect(response.body.problems.length, context).toBe(response.body.problemCount);
  for (const problem of response.body.problems) {
    expect(problem, context).toMatchObject({ problemType: expect.any(String), severity: expect.any(String), reason: expect.any(String) });
    if (response.status === 400) expect(typeof problem.identifier === "string" && problem.identifier.length > 0, `${context}: a 400 problem must name the field`).toBe(true);
  }
}

/** A nested JSON text built as a string (JSON.stringify itself overflows on such depth). */
export function nestedText(depth: number, open: string, close: string, inner: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

const ID_CHARS = "0123456789abcdef";

/** Path ids: well-formed ones that do not exist, and hostile ones (NUL, traversal, bad escapes, huge). */
export const pathIdArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 24, maxLength: 24 }),
  fc.constant("abc%00def"),
  fc.constant("%2e%2e%2f%2e%2e%2fetc%2fpasswd"),
  fc.constant("%E0%A4%A"),
  fc.constant("%FF%FE"),
  fc.constant("x".repeat(5000)),
  fc.constant("%0a%0d"),
  fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s) || "x"),
  fc.string({ unit: "binary", maxLength: 12 }).map((s) => encodeURIComponent(s) || "x"),
);

/** Leaf values of every JSON type, with the shapes that break parsers: NUL, huge numbers, long strings. */
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("", "\u0000", "a\u0000b", "\ud800", "..", "../../etc/passwd", "=1+1", "2025-13-45", "2025-06-30T14:05:09Z", "1e999", "NaN"),
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 63), 1e308, -0.5, 3.14),
  fc.boolean(),
  fc.constant(null),
  fc.string({ minLength: 2000, maxLength: 3000 }),
);

/** Any JSON value, with hostile leaves, up to a modest depth and size. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileScalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("name", "id", "version", "engagementId", "$and", "$or", "__proto__", "constructor")), tie("value"), { maxKeys: 5 }),
  ),
})).value;

/** A body shaped like the route's schema (known properties, values of random types), or any JSON. */
export function bodyFor(schema: any, components: Record<string, any>): fc.Arbitrary<unknown> {
  const resolved = resolveRef(schema, components);
  const properties = Object.keys(resolved?.properties ?? {});
  if (properties.length === 0) return hostileJson;
  const shaped = fc
    .subarray(properties)
    .chain((keys) => fc.tuple(...keys.map((key) => fc.oneof(valueFor(resolveRef(resolved.properties[key], components), components, 2), hostileJson).map((value) => [key, value] as const))))
    .map((entries) => Object.fromEntries(entries));
  return fc.oneof(shaped, shaped, hostileJson);
}

function valueFor(schema: any, components: Record<string, any>, depth: number): fc.Arbitrary<unknown> {
  if (!schema) return hostileScalar;
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), hostileScalar);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  if (type === "string") return fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 24, maxLength: 24 }), hostileScalar);
  if (type === "integer" || type === "number") return fc.oneof(fc.integer({ min: -5, max: 5 }), hostileScalar);
  if (type === "boolean") return fc.oneof(fc.boolean(), hostileScalar);
  if (type === "array") return fc.array(depth > 0 ? valueFor(resolveRef(schema.items, components), components, depth - 1) : hostileScalar, { maxLength: 3 });
  if (type === "object" && schema.properties && depth > 0) {
    const keys = Object.keys(schema.properties);
    return fc
      .subarray(keys)
      .chain((picked) => fc.tuple(...picked.map((key) => valueFor(resolveRef(schema.properties[key], components), components, depth - 1).map((v) => [key, v] as const))))
      .map((entries) => Object.fromEntries(entries));
  }
  return hostileJson;
}

function resolveRef(schema: any, components: Record<string, any>): any {
  let current = schema;
  for (let i = 0; i < 5 && current?.$ref; i++) current = components[current.$ref.split("/").pop()];
  if (current?.oneOf) return resolveRef(current.oneOf.find((s: any) => s.$ref || s.properties) ?? current.oneOf[0], components);
  if (current?.anyOf) return resolveRef(current.anyOf.find((s: any) => s.$ref || s.properties) ?? current.anyOf[0], components);
  return current;
}
