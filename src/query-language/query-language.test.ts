import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../test/helpers/database.js";
import { ValidationError } from "../core/errors.js";
import { parseJsonBody } from "../core/json-body.js";
import { checkFilter, compileFilter, defineColumns, enumOf, orderByClause, SqlParams } from "./index.js";

// Every operator runs as SQL against a real table holding each column type the language knows;
// the expected rows follow from the data below, not from the translator.
const columns = defineColumns("probe", {
  id: { type: "OBJECTID", equalitySearch: true, rangeSearch: true, sortable: true },
  name: { type: "STRING", equalitySearch: true, rangeSearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true },
  code: { type: "STRING" },
  posted: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true },
  day: { type: "DATE", equalitySearch: true, rangeSearch: true },
  qty: { type: "INT32", equalitySearch: true, rangeSearch: true },
  big: { type: "INT64", equalitySearch: true, rangeSearch: true },
  ratio: { type: "FLOAT32", equalitySearch: true, rangeSearch: true },
  precise: { type: "FLOAT64", equalitySearch: true, rangeSearch: true },
  amount: { type: "MONEY_100", equalitySearch: true, rangeSearch: true },
  pct: { type: "PERCENTAGE_FIXED_POINT", equalitySearch: true, rangeSearch: true },
  active: { type: "BOOLEAN", equalitySearch: true },
  tags: { type: "ARRAY_STRINGS", containsSearch: true },
  flags: { type: "BOOLEAN_FLAGS" },
  memo: { type: "KEYWORD_SEARCH", keywordSearch: true },
  notes: { type: "KEYWORD_SEARCH", keywordSearch: true },
  noflags: { type: "STRING", sql: "name" },
  state: enumOf(["OPEN", "ON_HOLD", "CLOSED"]),
});

const ROWS = [
  { id: "000000000000000000000001", name: "Alpha Ltd", code: "A", posted: "2025-01-10T10:00:00Z", day: "2025-01-10", qty: 1, big: "9000000000", ratio: 0.5, precise: 1.25, amount: 10050, pct: 1000, active: true, tags: ["Cash", "Bank"], flags: { manual: true, weekend: false }, memo: "Year-end accrual reversal", notes: null, state: "OPEN" },
  { id: "000000000000000000000002", name: "beta gmbh", code: "B", posted: "2025-02-15T12:30:00Z", day: "2025-02-15", qty: 2, big: "-5", ratio: 2.5, precise: -3.5, amount: -250, pct: 5000, active: false, tags: ["Revenue"], flags: { manual: false, weekend: true }, memo: "Sales invoice 1002", notes: "approved late", state: "CLOSED" },
  { id: "000000000000000000000003", name: "Gamma_50%", code: null, posted: "2025-03-20T00:00:00Z", day: "2025-03-20", qty: 3, big: "0", ratio: 0, precise: 0, amount: 0, pct: 10000, active: true, tags: [], flags: {}, memo: null, notes: "Accrued bonus", state: "ON_HOLD" },
  { id: "000000000000000000000004", name: null, code: "D", posted: null, day: null, qty: null, big: null, ratio: null, precise: null, amount: null, pct: null, active: null, tags: null, flags: null, memo: "cash count", notes: null, state: null },
];

let pool: pg.Pool;
beforeAll(async () => {
  const { url } = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(`CREATE TABLE probe (id text PRIMARY KEY, name text, code text, posted timestamptz, day date, qty integer, big bigint, ratio real,
    precise double precision, amount bigint, pct numeric, active boolean, tags text[], flags jsonb, memo text, notes text, state text)`);
  for (const r of ROWS) {
    await pool.query("INSERT INTO probe VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)", [
      r.id, r.name, r.code, r.posted, r.day, r.qty, r.big, r.ratio, r.precise, r.amount, r.pct, r.active, r.tags, r.flags === null ? null : JSON.stringify(r.flags), r.memo, r.notes, r.state,
    ]);
  }
});
afterAll(async () => pool?.end());

async function ids(filter: unknown): Promise<number[]> {
  const { sql, params } = compileFilter(filter, columns, new SqlParams());
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM probe WHERE ${sql} ORDER BY id`, params.values);
  return rows.map((r) => Number.parseInt(r.id, 16));
}

function problemsOf(filter: unknown): Array<{ identifier?: string; problemType: string; reason: string; values?: string[]; suggestedValues?: string[] }> {
  try {
    checkFilter(filter, columns);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).problems;
  }
  throw new Error("filter was accepted");
}

describe("query language operators (executed in PostgreSQL)", () => {
  it("{} and absent filters match everything", async () => {
    expect(await ids({})).toEqual([1, 2, 3, 4]);
    expect(await ids(undefined)).toEqual([1, 2, 3, 4]);
  });
  it("shorthand equality, case-insensitive for strings", async () => {
    expect(await ids({ name: "ALPHA LTD" })).toEqual([1]);
    expect(await ids({ qty: 2 })).toEqual([2]);
    expect(await ids({ name: null })).toEqual([4]);
  });
  it("$eq and $ne (null-safe: $ne keeps rows without a value)", async () => {
    expect(await ids({ name: { $eq: "beta GMBH" } })).toEqual([2]);
    expect(await ids({ name: { $ne: "beta gmbh" } })).toEqual([1, 3, 4]);
    expect(await ids({ qty: { $ne: null } })).toEqual([1, 2, 3]);
    expect(await ids({ id: { $eq: "000000000000000000000003" } })).toEqual([3]);
    expect(await ids({ active: { $eq: false } })).toEqual([2]);
  });
  it("$gt, $gte, $lt, $lte on numbers, money, percentages, dates and strings", async () => {
    expect(await ids({ qty: { $gt: 1 } })).toEqual([2, 3]);
    expect(await ids({ qty: { $gte: 2 } })).toEqual([2, 3]);
    expect(await ids({ qty: { $lt: 2 } })).toEqual([1]);
    expect(await ids({ qty: { $lte: 2 } })).toEqual([1, 2]);
    expect(await ids({ amount: { $lt: 0 } })).toEqual([2]);
    expect(await ids({ big: { $gt: 8999999999 } })).toEqual([1]);
    expect(await ids({ pct: { $gte: 5000, $lte: 10000 } })).toEqual([2, 3]);
    expect(await ids({ ratio: { $gt: 1.5 } })).toEqual([2]);
    expect(await ids({ precise: { $lt: 0 } })).toEqual([2]);
    expect(await ids({ posted: { $gte: "2025-02-15T12:30:00Z", $lt: "2025-03-20T00:00:00.000Z" } })).toEqual([2]);
    expect(await ids({ posted: { $gt: "2025-02-01T00:00:00Z" } })).toEqual([2, 3]);
    expect(await ids({ posted: { $lt: "2025-02-15T14:30:00+02:00" } })).toEqual([1]);
    expect(await ids({ day: { $lte: "2025-02-15" } })).toEqual([1, 2]);
    expect(await ids({ name: { $gt: "B" } })).toEqual([2, 3]);
  });
  it("$in and $nin", async () => {
    expect(await ids({ qty: { $in: [1, 3] } })).toEqual([1, 3]);
    expect(await ids({ name: { $in: ["ALPHA LTD", "gamma_50%"] } })).toEqual([1, 3]);
    expect(await ids({ id: { $in: ["000000000000000000000002", "000000000000000000000004"] } })).toEqual([2, 4]);
    expect(await ids({ qty: { $nin: [1, 3] } })).toEqual([2, 4]);
    expect(await ids({ qty: { $in: [] } })).toEqual([]);
    expect(await ids({ qty: { $nin: [] } })).toEqual([1, 2, 3, 4]);
  });
  it("$contains and $ncontains on string arrays, case-insensitively", async () => {
    expect(await ids({ tags: { $contains: "cash" } })).toEqual([1]);
    expect(await ids({ tags: { $ncontains: "cash" } })).toEqual([2, 3, 4]);
  });
  it("$flags on boolean flags (absent flags count as false)", async () => {
    expect(await ids({ flags: { $flags: { manual: true } } })).toEqual([1]);
    expect(await ids({ flags: { $flags: { manual: false, weekend: true } } })).toEqual([2]);
    expect(await ids({ flags: { $flags: { weekend: false } } })).toEqual([1, 3, 4]);
  });
  it("$isubstr treats LIKE wildcards literally", async () => {
    expect(await ids({ name: { $isubstr: "GMB" } })).toEqual([2]);
    expect(await ids({ name: { $isubstr: "_50%" } })).toEqual([3]);
    expect(await ids({ name: { $isubstr: "%" } })).toEqual([3]);
  });
  it("$iprefix and $niprefix", async () => {
    expect(await ids({ name: { $iprefix: "al" } })).toEqual([1]);
    expect(await ids({ name: { $niprefix: "al" } })).toEqual([2, 3, 4]);
  });
  it("several operators on one column are ANDed, as are sibling keys", async () => {
    expect(await ids({ qty: { $gte: 1, $lt: 3 }, active: true })).toEqual([1]);
  });
  it("$and and $or nest", async () => {
    expect(await ids({ $or: [{ qty: 1 }, { qty: 3 }] })).toEqual([1, 3]);
    expect(await ids({ $and: [{ qty: { $gte: 1 } }, { qty: { $lte: 2 } }] })).toEqual([1, 2]);
    expect(await ids({ $or: [{ $and: [{ active: true }, { qty: 3 }] }, { name: { $iprefix: "beta" } }] })).toEqual([2, 3]);
    // The same column twice needs $and (keys in one object are unique).
    expect(await ids({ $and: [{ name: { $ne: "alpha ltd" } }, { name: { $ne: "beta gmbh" } }] })).toEqual([3, 4]);
  });
  it("$keyword_prefix and $keyword_prefix_not search word starts in every keyword column", async () => {
    expect(await ids({ $keyword_prefix: "accru" })).toEqual([1, 3]);
    expect(await ids({ $keyword_prefix: "CASH" })).toEqual([4]);
    expect(await ids({ $keyword_prefix: "ccru" })).toEqual([]);
    expect(await ids({ $keyword_prefix_not: "accru" })).toEqual([2, 4]);
    expect(await ids({ $keyword_prefix: "1002" })).toEqual([2]);
  });
  it("enumeration columns: values in any case, compared as stored with the canonical value", async () => {
    expect(await ids({ state: "open" })).toEqual([1]);
    expect(await ids({ state: { $eq: "On_Hold" } })).toEqual([3]);
    expect(await ids({ state: { $ne: "closed" } })).toEqual([1, 3, 4]);
    expect(await ids({ state: { $in: ["closed", "ON_HOLD"] } })).toEqual([2, 3]);
    expect(await ids({ state: { $nin: ["open"] } })).toEqual([2, 3, 4]);
    expect(await ids({ state: null })).toEqual([4]);
    expect(await ids({ state: { $ne: null } })).toEqual([1, 2, 3]);
    // No lower(col): a plain index on the column serves equality, IN and the sort.
    expect(compileFilter({ state: "open" }, columns, new SqlParams())).toMatchObject({ sql: `"state" = $1::text`, params: { values: ["OPEN"] } });
    expect(compileFilter({ state: { $in: ["closed", "on_hold"] } }, columns, new SqlParams())).toMatchObject({ sql: `"state" = ANY($1::text[])`, params: { values: [["CLOSED", "ON_HOLD"]] } });
    expect(compileFilter({ state: { $ne: "Closed" } }, columns, new SqlParams()).sql).toBe(`"state" IS DISTINCT FROM $1::text`);
    expect(compileFilter({ state: { $nin: ["open"] } }, columns, new SqlParams()).sql).toBe(`("state" IS NULL OR NOT ("state" = ANY($1::text[])))`);
    expect(orderByClause([{ field: "state", direction: "DESC" }], columns)).toBe(`"state" DESC NULLS LAST, "id" ASC`);
    // Other STRING columns keep comparing and sorting lower-cased.
    expect(compileFilter({ name: "Alpha" }, columns, new SqlParams()).sql).toBe(`lower("name") = $1::text`);
    expect(orderByClause([{ field: "noflags", direction: "ASC" }], columns)).toBe(`lower("name") ASC NULLS LAST, "id" ASC`);
  });
  it("binds values as parameters (no SQL injection through values)", async () => {
    expect(await ids({ name: "x' OR '1'='1" })).toEqual([]);
    expect(await ids({ $keyword_prefix: "a') OR TRUE --" })).toEqual([]);
  });
});

describe("query language errors (each names the key)", () => {
  it("an unknown column, with the queryable ones suggested", () => {
    const [problem] = problemsOf({ colour: "red" });
    expect(problem).toMatchObject({ identifier: "colour", problemType: "FILTER_CONVERSION_FAILED" });
  });
  it("an unknown column operator and an unknown root operator", () => {
    expect(problemsOf({ qty: { $between: [1, 2] } })[0]).toMatchObject({ identifier: "qty.$between" });
    expect(problemsOf({ $nor: [] })[0]).toMatchObject({ identifier: "$nor" });
    expect(problemsOf({ qty: { gt: 1 } })[0]).toMatchObject({ identifier: "qty.gt" });
  });
  it("an operator the column's type does not support", () => {
    expect(problemsOf({ qty: { $isubstr: "1" } })[0]).toMatchObject({ identifier: "qty.$isubstr" });
    expect(problemsOf({ tags: { $eq: "x" } })[0]).toMatchObject({ identifier: "tags.$eq" });
    expect(problemsOf({ name: { $contains: "x" } })[0]).toMatchObject({ identifier: "name.$contains" });
    expect(problemsOf({ name: { $flags: { a: true } } })[0]).toMatchObject({ identifier: "name.$flags" });
  });
  it("an operator the column's search flags do not allow", () => {
    expect(problemsOf({ code: "A" })[0].reason).toMatch(/equalitySearch/);
    expect(problemsOf({ code: { $iprefix: "A" } })[0].reason).toMatch(/caseInsensitivePrefixSearch/);
    expect(problemsOf({ code: { $isubstr: "A" } })[0].reason).toMatch(/allowCaseInsensitiveSubstringSearch/);
    expect(problemsOf({ code: { $gt: "A" } })[0].reason).toMatch(/rangeSearch/);
    expect(problemsOf({ active: { $gt: true } })[0]).toMatchObject({ identifier: "active.$gt" });
  });
  it("values of the wrong type or out of range", () => {
    expect(problemsOf({ qty: "one" })[0]).toMatchObject({ identifier: "qty", problemType: "INCORRECT_DATA_TYPE" });
    expect(problemsOf({ qty: 2 ** 31 })[0].reason).toMatch(/INT32/);
    expect(problemsOf({ qty: 1.5 })[0].reason).toMatch(/integer/);
    expect(problemsOf({ big: 2 ** 64 })[0].reason).toMatch(/INT64/);
    expect(problemsOf({ amount: 10.5 })[0].reason).toMatch(/MONEY_100/);
    expect(problemsOf({ pct: 10001 })[0].reason).toMatch(/0 to 10000/);
    expect(problemsOf({ pct: -1 })[0].reason).toMatch(/0 to 10000/);
    expect(problemsOf({ ratio: 1e39 })[0].reason).toMatch(/FLOAT32/);
    expect(problemsOf({ ratio: 1e-39 })[0].reason).toMatch(/FLOAT32/);
    expect(problemsOf({ precise: "1" })[0].reason).toMatch(/FLOAT64/);
    expect(problemsOf({ posted: "yesterday" })[0].reason).toMatch(/ISO 8601/);
    expect(problemsOf({ posted: "2025-13-45T00:00:00Z" })[0].reason).toMatch(/not a valid date-time/);
    expect(problemsOf({ day: "2025-02-30" })[0].reason).toMatch(/not a valid date/);
    expect(problemsOf({ id: "xyz" })[0].reason).toMatch(/24-character/);
    expect(problemsOf({ active: "yes" })[0].reason).toMatch(/true or false/);
    expect(problemsOf({ name: 5 })[0].reason).toMatch(/string/);
  });
  it("DATE_TIME values carry a zone (Z or an offset); date-only and zone-less values are refused", () => {
    expect(problemsOf({ posted: "2025-02-01" })[0]).toMatchObject({ identifier: "posted", problemType: "INCORRECT_DATA_TYPE" });
    expect(problemsOf({ posted: "2025-02-01" })[0].reason).toMatch(/no zone/);
    expect(problemsOf({ posted: { $gte: "2025-02-01T10:00:00" } })[0]).toMatchObject({ identifier: "posted.$gte" });
    expect(problemsOf({ posted: { $gte: "2025-02-01T10:00:00" } })[0].reason).toMatch(/no zone/);
    expect(problemsOf({ posted: "2025-02-30T00:00:00Z" })[0].reason).toMatch(/not a valid date-time/);
    expect(problemsOf({ posted: "2025-02-01T24:00:00Z" })[0].reason).toMatch(/not a valid date-time/);
    expect(() => checkFilter({ posted: "2025-02-01T10:00:00.123456+0530" }, columns)).not.toThrow();
  });

  it("INT64 and MONEY_100 take the full 64-bit range exactly when the literal comes from a JSON body", async () => {
    const max = parseJsonBody('{"big":{"$lte":9223372036854775807,"$gte":-9223372036854775808}}');
    const { params } = compileFilter(max, columns, new SqlParams());
    expect(params.values).toEqual(["9223372036854775807", "-9223372036854775808"]);
    expect(await ids(max)).toEqual([1, 2, 3]);
    // 2^53 + 1 is not a JS number; the bound parameter is still the literal's value.
    const odd = compileFilter(parseJsonBody('{"amount":{"$in":[9007199254740993, 1]}}'), columns, new SqlParams());
    expect(odd.params.values).toEqual([["9007199254740993", "1"]]);
    const over = problemsOf(parseJsonBody('{"big":9223372036854775808}'))[0];
    expect(over).toMatchObject({ identifier: "big", values: ["9223372036854775808"] });
    expect(over.reason).toBe("big: 9223372036854775808 is outside the INT64 range [-9223372036854775808, 9223372036854775807]");
    expect(problemsOf(parseJsonBody('{"amount":{"$gt":-9223372036854775809}}'))[0].reason).toMatch(/outside the MONEY_100 .* range \[-9223372036854775808, 9223372036854775807\]/);
    expect(problemsOf({ qty: 2 ** 31 })[0].reason).toBe("qty: 2147483648 is outside the INT32 range [-2147483648, 2147483647]");
    // A rounded number whose digits are unknown (not from a JSON literal) is refused, not guessed.
    expect(problemsOf({ big: 2 ** 60 })[0].reason).toMatch(/not exact/);
    expect(problemsOf(parseJsonBody('{"big":9.2e18}'))[0].reason).toMatch(/not exact/);
  });

  it("a value outside an enumeration column's values (INCORRECT_DATA_TYPE, the allowed values suggested)", () => {
    const allowed = ["OPEN", "ON_HOLD", "CLOSED"];
    expect(problemsOf({ state: "BOGUS" })).toEqual([
      { problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: "state", reason: "state: expects one of OPEN, ON_HOLD, CLOSED", values: ["BOGUS"], suggestedValues: allowed },
    ]);
    expect(problemsOf({ state: { $eq: "opened" } })[0]).toMatchObject({ identifier: "state.$eq", problemType: "INCORRECT_DATA_TYPE", values: ["opened"], suggestedValues: allowed });
    expect(problemsOf({ state: { $ne: "ON HOLD" } })[0]).toMatchObject({ identifier: "state.$ne", problemType: "INCORRECT_DATA_TYPE", values: ["ON HOLD"] });
    // One bad value in $in/$nin refuses the whole filter, naming that value.
    expect(problemsOf({ state: { $in: ["open", "NOPE"] } })).toEqual([
      { problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: "state.$in", reason: "state: expects one of OPEN, ON_HOLD, CLOSED", values: ["NOPE"], suggestedValues: allowed },
    ]);
    expect(problemsOf({ state: { $nin: ["CLOSED", ""] } })[0]).toMatchObject({ identifier: "state.$nin", values: [""] });
    // Not a string at all, and nested under $and/$or.
    expect(problemsOf({ state: 5 })[0]).toMatchObject({ identifier: "state", problemType: "INCORRECT_DATA_TYPE", values: ["5"], suggestedValues: allowed });
    expect(problemsOf({ state: { $in: [null] } })[0]).toMatchObject({ identifier: "state.$in", values: ["null"] });
    expect(problemsOf({ $or: [{ qty: 1 }, { $and: [{ state: "gone" }] }] })[0]).toMatchObject({ identifier: "$or[1].$and[0].state", reason: expect.stringMatching(/expects one of/) });
    // Operators other than equality keep their own checks (enumeration columns have no range or prefix search).
    expect(problemsOf({ state: { $gt: "OPEN" } })[0].reason).toMatch(/rangeSearch/);
    expect(problemsOf({ state: { $iprefix: "op" } })[0].reason).toMatch(/caseInsensitivePrefixSearch/);
  });
  it("malformed operands", () => {
    expect(problemsOf({ qty: { $in: 1 } })[0].reason).toMatch(/array/);
    expect(problemsOf({ qty: { $in: [1, "x"] } })[0].identifier).toBe("qty.$in");
    expect(problemsOf({ flags: { $flags: { manual: "yes" } } })[0].reason).toMatch(/true or false/);
    expect(problemsOf({ flags: { $flags: {} } })[0].identifier).toBe("flags.$flags");
    expect(problemsOf({ name: { $iprefix: "" } })[0].identifier).toBe("name.$iprefix");
    expect(problemsOf({ qty: {} })[0].identifier).toBe("qty");
    expect(problemsOf({ $and: {} })[0].identifier).toBe("$and");
    expect(problemsOf({ $or: [] })[0].identifier).toBe("$or");
    expect(problemsOf({ $or: [5] })[0].identifier).toBe("$or[0]");
    expect(problemsOf([])[0].identifier).toBe("$");
    expect(problemsOf({ $keyword_prefix: "" })[0].identifier).toBe("$keyword_prefix");
    expect(problemsOf({ $and: [{ qty: { $gt: "a" } }] })[0].identifier).toBe("$and[0].qty.$gt");
  });
  it("$keyword_prefix on a subject without keyword columns", () => {
    const noKeywords = defineColumns("plain", { name: { type: "STRING", equalitySearch: true } });
    expect(() => checkFilter({ $keyword_prefix: "a" }, noKeywords)).toThrow(/no column with keywordSearch/);
  });
  it("$population and $not_population are parsed and validated, evaluated only where populations exist", () => {
    expect(problemsOf({ $population: "nope" })[0]).toMatchObject({ identifier: "$population", problemType: "POPULATION_CONVERSION_FAILED" });
    expect(problemsOf({ $not_population: "5cc9076887f13cb8a7a1926b" })[0].reason).toMatch(/Populations cannot be used/);
    const checked = checkFilter({ $population: "5cc9076887f13cb8a7a1926b" }, columns, { populationsSupported: true });
    expect(checked).toEqual({ kind: "population", negated: false, populationId: "5cc9076887f13cb8a7a1926b" });
  });
  it("collects every problem of one filter", () => {
    expect(problemsOf({ colour: 1, qty: "x", $or: [{ size: 1 }] }).map((p) => p.identifier).sort()).toEqual(["$or[0].size", "colour", "qty"]);
  });
});
