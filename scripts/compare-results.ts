/**
 * Compares two analysis results of the same ledger table by table, for engine changes that must
 * leave every result identical (docs/architecture.md, "How a run uses PostgreSQL"):
 *
 *   DATABASE_URL=... node --import tsx scripts/compare-results.ts <resultIdA> <resultIdB>
 *
 * Every table either result still has (published, kept statistics and facts) is compared with
 * EXCEPT ALL both ways on the columns both have; a table that differs is compared again without
 * `row_no` (the flows' row number is arbitrary), so the report says which. Then the result
 * summaries (as JSON), the data table definitions (column flags, row counts; ids of other data
 * tables replaced by their logical names) and, listed but not counted, the columns' index flags and
 * the index definitions. Exits 1 on any other difference.
 */
import { isDeepStrictEqual } from "node:util";
import pg from "pg";
import { RESULTS_SCHEMA, resultTables } from "../src/engine/tables.js";

const [a, b] = process.argv.slice(2);
if (!a || !b || !process.env.DATABASE_URL) {
  process.stderr.write("usage: DATABASE_URL=... node --import tsx scripts/compare-results.ts <resultIdA> <resultIdB>\n");
  process.exit(2);
}
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const q = (name: string) => `"${RESULTS_SCHEMA}"."${name}"`;
let differences = 0;
const report = (line: string, different = false) => {
  if (different) differences++;
  process.stdout.write(`${different ? "DIFF " : "     "}${line}\n`);
};

async function tablesOf(id: string): Promise<Map<string, string>> {
  const prefix = resultTables(id).prefix;
  const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND starts_with(tablename, $2) ORDER BY 1", [RESULTS_SCHEMA, prefix]);
  return new Map(rows.map((r) => [r.name.slice(prefix.length), r.name]));
}

async function columnsOf(name: string): Promise<string[]> {
  const { rows } = await client.query<{ c: string }>("SELECT attname AS c FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum", [q(name)]);
  return rows.map((r) => r.c);
}

async function floatColumnsOf(name: string): Promise<Set<string>> {
  const { rows } = await client.query<{ c: string }>("SELECT attname AS c FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND atttypid = 'float8'::regtype", [q(name)]);
  return new Set(rows.map((r) => r.c));
}

/** Row counts of A EXCEPT ALL B and B EXCEPT ALL A; `coarse` columns compared as float4 (7 digits). */
async function exceptAll(left: string, right: string, columns: string[], coarse = new Set<string>()): Promise<[number, number]> {
  const list = columns.map((c) => (coarse.has(c) ? `"${c}"::float4` : `"${c}"`)).join(", ");
  const count = async (x: string, y: string) =>
    Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT ${list} FROM ${q(x)} EXCEPT ALL SELECT ${list} FROM ${q(y)}) d`)).rows[0].n);
  return [await count(left, right), await count(right, left)];
}

const [tablesA, tablesB] = [await tablesOf(a), await tablesOf(b)];
for (const suffix of [...new Set([...tablesA.keys(), ...tablesB.keys()])].sort()) {
  const [ta, tb] = [tablesA.get(suffix), tablesB.get(suffix)];
  if (!ta || !tb) {
    report(`${suffix}: only in ${ta ? a : b}`, true);
    continue;
  }
  const [ca, cb] = [await columnsOf(ta), await columnsOf(tb)];
  const common = ca.filter((c) => cb.includes(c));
  const only = [...ca.filter((c) => !cb.includes(c)).map((c) => `${c} (A)`), ...cb.filter((c) => !ca.includes(c)).map((c) => `${c} (B)`)];
  if (only.length > 0) report(`${suffix}: columns in one only: ${only.join(", ")}`, true);
  if (ca.filter((c) => cb.includes(c)).join() !== cb.filter((c) => ca.includes(c)).join()) report(`${suffix}: column order differs`);
  const rows = async (name: string) => Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(name)}`)).rows[0].n);
  const [na, nb] = [await rows(ta), await rows(tb)];
  const [ab, ba] = await exceptAll(ta, tb, common);
  if (ab === 0 && ba === 0) {
    report(`${suffix}: identical (${na} rows, ${common.length} columns)`, na !== nb);
    continue;
  }
  let note = "";
  if (common.includes("row_no")) {
    const [ab2, ba2] = await exceptAll(ta, tb, common.filter((c) => c !== "row_no"));
    note = `; without row_no: ${ab2} / ${ba2}`;
    if (ab2 === 0 && ba2 === 0 && suffix === "flows") {
      report(`${suffix}: identical but for row_no, an arbitrary row number (${na} rows; A-B ${ab}, B-A ${ba})`);
      continue;
    }
  }
  // Sums of float8 in parallel aggregates depend on the order workers add rows in (the last digits).
  const floats = await floatColumnsOf(ta);
  if (floats.size > 0) {
    const [ab3, ba3] = await exceptAll(ta, tb, common.filter((c) => c !== "row_no" || suffix !== "flows"), floats);
    note += `; float8 columns (${[...floats].join(", ")}) as float4: ${ab3} / ${ba3}`;
  }
  report(`${suffix}: ${na} / ${nb} rows; A EXCEPT ALL B ${ab}, B EXCEPT ALL A ${ba}${note}`, true);
}

const summaries = (await client.query<{ id: string; summary: unknown }>("SELECT id, summary FROM analysis_result WHERE id = ANY($1)", [[a, b]])).rows;
const summary = (id: string) => summaries.find((r) => r.id === id)?.summary;
const paths = (x: unknown, y: unknown, at: string): string[] => {
  if (isDeepStrictEqual(x, y)) return [];
  if (x && y && typeof x === "object" && typeof y === "object") {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    return [...keys].flatMap((k) => paths((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}.${k}`));
  }
  return [`${at}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`];
};
const summaryDiff = paths(summary(a), summary(b), "summary");
report(summaryDiff.length === 0 ? "summary: identical JSON" : `summary differs:\n       ${summaryDiff.slice(0, 30).join("\n       ")}`, summaryDiff.length > 0);

const definitions = async (id: string) => {
  const { rows } = await client.query<{ id: string; logical_name: string; columns: unknown; row_count: string }>("SELECT id, logical_name, columns, row_count FROM data_table WHERE analysis_result_id = $1", [id]);
  const names = new Map(rows.map((r) => [r.id, r.logical_name]));
  const text = (value: unknown) => JSON.stringify(value).replace(/"([a-f0-9]{24})"/g, (m, x: string) => (names.has(x) ? `"${names.get(x)}"` : m));
  return new Map(rows.map((r) => [r.logical_name, JSON.parse(text({ columns: r.columns, rowCount: r.row_count }))]));
};
// Column flags that only say how the columns are indexed (none is on the wire): listed apart.
const INDEX_FLAGS = new Set(["indexed", "orderIndexed", "partialIndex", "commonValues"]);
const [defsA, defsB] = [await definitions(a), await definitions(b)];
for (const name of [...new Set([...defsA.keys(), ...defsB.keys()])].sort()) {
  const diff = paths(defsA.get(name), defsB.get(name), name);
  const [indexing, other] = [diff.filter((d) => INDEX_FLAGS.has(d.split(":")[0].split(".").pop()!)), diff.filter((d) => !INDEX_FLAGS.has(d.split(":")[0].split(".").pop()!))];
  report(other.length === 0 ? `data table ${name}: same definition` : `data table ${name}:\n       ${other.slice(0, 20).join("\n       ")}`, other.length > 0);
  if (indexing.length > 0) report(`data table ${name}, index flags:\n       ${indexing.slice(0, 20).join("\n       ")}`);
}

// Indexes are no result value (an engine change may build others): listed, not counted as a difference.
const indexes = async (id: string) => {
  const prefix = resultTables(id).prefix;
  const { rows } = await client.query<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE schemaname = $1 AND starts_with(tablename, $2)", [RESULTS_SCHEMA, prefix]);
  return new Set(rows.map((r) => r.def.replaceAll(prefix, "r_<id>_")));
};
const [ia, ib] = [await indexes(a), await indexes(b)];
for (const def of [...ia].filter((d) => !ib.has(d)).sort()) report(`index only in A: ${def}`);
for (const def of [...ib].filter((d) => !ia.has(d)).sort()) report(`index only in B: ${def}`);
report(`indexes: ${ia.size} in A, ${ib.size} in B, ${[...ia].filter((d) => ib.has(d)).length} the same`);

await client.end();
process.stdout.write(differences === 0 ? "no difference\n" : `${differences} difference(s)\n`);
process.exit(differences === 0 ? 0 : 1);
