import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { parseJsonBody } from "../../src/core/json-body.js";
import { compileFilter, defineColumns, orderByClause, parseSort, type ColumnType } from "../../src/query-language/index.js";
import { createTestDatabase } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { expectWellFormedAnswer, fuzzParameters, fuzzTimeout, hostileScalar, rawRequest } from "../helpers/fuzz.js";

// The query language (spec 4.2) under random filters and sorts: every filter either compiles to
// SQL that PostgreSQL runs, or is refused with problems naming the key. Checked against a real
// table with a column of every type, then through the /query endpoints over HTTP.

const COLUMNS: Array<{ field: string; type: ColumnType; sql: string; ddl: string }> = [
  { field: "name", type: "STRING", sql: "name", ddl: "text" },
  { field: "day", type: "DATE", sql: "day", ddl: "date" },
  { field: "at", type: "DATE_TIME", sql: "at", ddl: "timestamptz" },
  { field: "flag", type: "BOOLEAN", sql: "flag", ddl: "boolean" },
  { field: "small", type: "INT16", sql: "small", ddl: "smallint" },
  { field: "medium", type: "INT32", sql: "medium", ddl: "integer" },
  { field: "big", type: "INT64", sql: "big", ddl: "bigint" },
  { field: "f32", type: "FLOAT32", sql: "f32", ddl: "real" },
  { field: "f64", type: "FLOAT64", sql: "f64", ddl: "double precision" },
  { field: "amount", type: "MONEY_100", sql: "amount", ddl: "bigint" },
  { field: "pct", type: "PERCENTAGE_FIXED_POINT", sql: "pct", ddl: "numeric" },
  { field: "dec", type: "DECIMAL", sql: "dec", ddl: "numeric" },
  { field: "tags", type: "ARRAY_STRINGS", sql: "tags", ddl: "text[]" },
  { field: "numbers", type: "ARRAY_INT64", sql: "numbers", ddl: "bigint[]" },
  { field: "memo", type: "KEYWORD_SEARCH", sql: "memo", ddl: "text" },
  { field: "ref", type: "OBJECTID", sql: "ref", ddl: "text" },
  { field: "flags", type: "BOOLEAN_FLAGS", sql: "flags", ddl: "jsonb" },
];
// Every search flag on every column (operators still apply only to the types spec 4.2 names);
// keyword search only on text, as column sets declare it.
const ALL_FLAGS = { equalitySearch: true, rangeSearch: true, containsSearch: true, allowCaseInsensitiveSubstringSearch: true, caseInsensitivePrefixSearch: true, sortable: true };
const columns = defineColumns("fuzz table", Object.fromEntries(COLUMNS.map((c) => [c.field, { type: c.type, sql: c.sql, ...ALL_FLAGS, keywordSearch: c.ddl === "text" }])));
const OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains", "$ncontains", "$flags", "$isubstr", "$iprefix", "$niprefix", "$bogus"];

/** Values a client may send for a column: well-typed ones near the edges, and anything else. */
const valueArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  hostileScalar,
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => Number(n)),
  fc.integer({ min: -40_000, max: 40_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom("0000-01-01", "9999-12-31", "2023-02-29", "2024-02-29", "1970-01-01", "0001-01-01"),
  fc.constantFrom("0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999+14:00", "2025-06-30T14:05:09", "2025-06-30T24:00:00Z", "1969-12-31T23:59:59-00:30"),
  fc.constantFrom("%", "_", "\\", "a%b_c\\", ".*+?^${}()|[]", "(?i)", "\\m", "'; DROP TABLE x; --", "ß", "İ", "🙂"),
  fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: 24, maxLength: 24 }),
  fc.array(hostileScalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.boolean(), hostileScalar), { maxKeys: 3 }),
);

const fieldArbitrary = fc.oneof(fc.constantFrom(...COLUMNS.map((c) => c.field)), fc.constantFrom("nope", "", "$name", "name.x", "__proto__"));

const filterArbitrary: fc.Arbitrary<unknown> = fc.letrec<{ filter: Record<string, unknown>; term: [string, unknown] }>((tie) => ({
  term: fc.oneof(
    { depthSize: "small" },
    fc.tuple(fieldArbitrary, valueArbitrary),
    fc.tuple(fieldArbitrary, fc.dictionary(fc.constantFrom(...OPERATORS), valueArbitrary, { minKeys: 0, maxKeys: 3 })),
    fc.tuple(fc.constantFrom("$and", "$or"), fc.oneof(fc.array(tie("filter"), { maxLength: 3 }), valueArbitrary)),
    fc.tuple(fc.constantFrom("$keyword_prefix", "$keyword_prefix_not", "$population", "$not_population", "$nope"), valueArbitrary),
  ),
  filter: fc.uniqueArray(tie("term"), { maxLength: 4, selector: (t) => t[0] }).map((terms) => Object.fromEntries(terms)),
})).filter;

const sortArbitrary = fc.array(
  fc.oneof(
    fc.tuple(fieldArbitrary, fc.constantFrom("asc", "DESC", "", "up", "asc,desc")).map(([f, d]) => (d ? `${f},${d}` : f)),
    fc.string({ maxLength: 12 }),
  ),
  { maxLength: 3 },
);

let pool: pg.Pool;
beforeAll(async () => {
  const { url } = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(`CREATE TABLE fuzz_rows (id text PRIMARY KEY, ${COLUMNS.map((c) => `${c.sql} ${c.ddl}`).join(", ")})`);
  await pool.query(`INSERT INTO fuzz_rows VALUES
    ('a', 'Alpha', '2023-01-31', '2023-01-31T10:00:00Z', true, 1, 2, 3, 1.5, 2.5, 12345, 50, 1.25, '{x,Y}', '{1,2}', 'first memo', '0123456789abcdef01234567', '{"a": true}'),
    ('b', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
});
afterAll(async () => pool?.end());

function exactJson(value: unknown): unknown {
  // As the server receives it: through the body parser, which keeps large integers' digits.
  const text = JSON.stringify(value);
  return text === undefined ? undefined : parseJsonBody(text);
}

describe("query language under random filters and sorts", () => {
  it("compiles every filter to SQL PostgreSQL runs, or refuses it with problems naming the key", async () => {
    let compiled = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(filterArbitrary, sortArbitrary, async (filter, sort) => {
        const input = exactJson(filter);
        let where: { sql: string; params: { values: unknown[] } } | undefined;
        try {
          where = compileFilter(input, columns);
        } catch (error) {
          expect(error, JSON.stringify(filter)).toBeInstanceOf(ValidationError);
          for (const problem of (error as ValidationError).problems) expect(problem.identifier, JSON.stringify(problem)).toMatch(/\S/);
          refused++;
        }
        let order = "id ASC";
        try {
          order = orderByClause(parseSort(sort, columns), columns);
        } catch (error) {
          expect(error, JSON.stringify(sort)).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).problems[0].identifier).toMatch(/^sort\[\d+\]$/);
        }
        if (where) {
          compiled++;
          await pool.query(`SELECT id FROM fuzz_rows WHERE ${where.sql} ORDER BY ${order}`, where.params.values).catch((error: Error) => {
            throw new Error(`SQL failed for ${JSON.stringify(filter)}: ${error.message}\n${where!.sql}\n${JSON.stringify(where!.params.values)}`);
          });
        }
      }),
      fuzzParameters(400),
    );
    // The arbitraries reach both outcomes (a property that only ever refuses proves little).
    expect(compiled).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  }, fuzzTimeout(60_000, 400));
});

describe("the /query endpoints under random filters and sorts", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ipRateLimit: 1_000_000 });
    await server.api.post("/organizations", { name: "Fuzz org" });
  });
  afterAll(async () => server?.close());

  const endpoints = ["/organizations/query", "/engagements/query", "/async-results/query", "/users/query", "/api-tokens/query", "/analysis-sources/query", "/file-manager/query", "/account-groupings/query", "/analysis-types/query"];
  const realFields = ["id", "version", "creationDate", "lastModifiedDate", "name", "organizationId", "status", "type", "email", "permissions", "expiry", "workflowState", "archived", "enabled", "role", "tags"];

  it("answers every filter and sort with 200 or a 400 naming the key", async () => {
    const endpointFilter = fc.letrec<{ filter: Record<string, unknown>; term: [string, unknown] }>((tie) => ({
      term: fc.oneof(
        { depthSize: "small" },
        fc.tuple(fc.constantFrom(...realFields), valueArbitrary),
        fc.tuple(fc.constantFrom(...realFields), fc.dictionary(fc.constantFrom(...OPERATORS), valueArbitrary, { maxKeys: 2 })),
        fc.tuple(fc.constantFrom("$and", "$or"), fc.array(tie("filter"), { minLength: 1, maxLength: 3 })),
        fc.tuple(fc.constantFrom("$keyword_prefix", "$population"), valueArbitrary),
      ),
      filter: fc.uniqueArray(tie("term"), { maxLength: 3, selector: (t) => t[0] }).map((terms) => Object.fromEntries(terms)),
    })).filter;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), endpointFilter, fc.array(fc.oneof(fc.constantFrom(...realFields).map((f) => `${f},desc`), fc.string({ maxLength: 8 })), { maxLength: 2 }), async (path, filter, sort) => {
        const query = new URLSearchParams(sort.map((s) => ["sort", s]));
        const response = await rawRequest(server.url, "POST", `/api/v1${path}?${query}`, {
          headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
          body: JSON.stringify(filter),
        });
        expectWellFormedAnswer(response, `${path}?${query} ${JSON.stringify(filter)}`);
        expect([200, 400], response.text).toContain(response.status);
      }),
      fuzzParameters(120),
    );
  }, fuzzTimeout(60_000, 120));
});
