import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../../test/helpers/database.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
import { ResultIndexer, resultIndexStatements } from "./analysis-result.indexes.js";

// A result table as the engine leaves it: rowid, two rare flags, a risk level whose only common
// value is LOW (MEDIUM on 1% of rows, HIGH on none), and a key column.
const TABLE = "results.ix_test_lines";
const column = (sql: string, type: string, extra: Partial<DataTableColumn> = {}) => ({ field: sql, sql, type, ...extra }) as unknown as DataTableColumn;
const COLUMNS = [
  column("row_no", "INT64", { indexed: true }),
  column("txid", "STRING", { indexed: true, equalitySearch: true }),
  column("cp_failed_a", "BOOLEAN", { partialIndex: true }),
  column("cp_failed_b", "BOOLEAN", { partialIndex: true }),
  column("risk_level", "STRING", { indexed: false, equalitySearch: true, commonValues: ["low"] }),
];

let pool: pg.Pool;
beforeAll(async () => {
  const { url } = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 6 });
  await pool.query("CREATE SCHEMA IF NOT EXISTS results");
  await pool.query(`CREATE TABLE ${TABLE} AS SELECT g AS row_no, 'TX' || (g / 4) AS txid, g % 200 = 0 AS cp_failed_a, g % 300 = 0 AS cp_failed_b,
                      CASE WHEN g % 100 = 7 THEN 'MEDIUM' ELSE 'LOW' END AS risk_level FROM generate_series(1, 20000) g`);
});
afterAll(async () => {
  await pool?.end();
});

const pageRows = async (where: string) => {
  const client = await pool.connect();
  try {
    // The partial index is usable only if the page's condition implies its predicate: with
    // sequential scans off the plan names it exactly when it does.
    await client.query("SET enable_seqscan = off");
    const plan = (await client.query(`EXPLAIN (COSTS OFF) SELECT row_no FROM ${TABLE} WHERE ${where} ORDER BY row_no LIMIT 10`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    const rows = (await client.query(`SELECT row_no FROM ${TABLE} WHERE ${where} ORDER BY row_no LIMIT 10`)).rows.map((r) => Number(r.row_no));
    await client.query("RESET enable_seqscan");
    return { plan, rows };
  } finally {
    client.release();
  }
};

describe("result indexes", () => {
  it("puts the rare flags and the risk level's rare values in one partial index that serves their pages", async () => {
    const statements = resultIndexStatements(TABLE, COLUMNS);
    const partial = statements.filter((s) => s.includes(" WHERE "));
    expect(partial).toHaveLength(1);
    expect(partial[0]).toContain(`("row_no", "cp_failed_a", "cp_failed_b", lower("risk_level")) WHERE "cp_failed_a" OR "cp_failed_b" OR lower("risk_level") NOT IN ('low')`);
    // The level keeps its expression statistics; no index of its own.
    expect(statements.some((s) => s.startsWith("CREATE STATISTICS") && s.includes(`lower("risk_level")`))).toBe(true);

    const indexer = new ResultIndexer(pool, new AbortController().signal);
    indexer.setSlots(2);
    indexer.add(TABLE, COLUMNS);
    await indexer.done();
    const { rows: indexes } = await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'results' AND tablename = 'ix_test_lines' ORDER BY 1");
    expect(indexes.map((i) => i.indexname)).toEqual(["ix_test_lines_0", "ix_test_lines_1", "ix_test_lines_p2_3"]);
    // The ANALYZE, queued before the plain and partial indexes, came after the expression index
    // and the statistics object: the planner has the statistics of lower(txid) and lower(risk_level).
    const { rows: stats } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM pg_stats WHERE schemaname = 'results' AND tablename = 'ix_test_lines_1'");
    expect(Number(stats[0].n)).toBe(1);
    const { rows: exprs } = await pool.query<{ expr: string }>("SELECT expr FROM pg_stats_ext_exprs WHERE schemaname = 'results' AND tablename = 'ix_test_lines'");
    expect(exprs.map((e) => e.expr)).toEqual(["lower(risk_level)"]);

    const medium = await pageRows(`lower(risk_level) = 'medium'`);
    expect(medium.plan).toContain("ix_test_lines_p2_3");
    expect(medium.rows).toEqual([7, 107, 207, 307, 407, 507, 607, 707, 807, 907]);
    const high = await pageRows(`lower(risk_level) = 'high'`);
    expect(high.plan).toContain("ix_test_lines_p2_3");
    expect(high.rows).toEqual([]);
    const flagB = await pageRows(`cp_failed_b`);
    expect(flagB.plan).toContain("ix_test_lines_p2_3");
    expect(flagB.rows).toEqual([300, 600, 900, 1200, 1500, 1800, 2100, 2400, 2700, 3000]);
    // The common value cannot use it (it is not in the index).
    expect((await pageRows(`lower(risk_level) = 'low'`)).plan).not.toContain("ix_test_lines_p2_3");
  });

  it("keeps a lone rare flag's own partial index when the level has no rare values to share", () => {
    const statements = resultIndexStatements(TABLE, [COLUMNS[0], COLUMNS[2], { ...COLUMNS[4], commonValues: undefined }]);
    expect(statements.filter((s) => s.includes(" WHERE "))).toEqual([`CREATE INDEX IF NOT EXISTS "ix_test_lines_p1" ON "results"."ix_test_lines" ("row_no") WHERE "cp_failed_a"`]);
  });

  it("runs summary reads on its lanes beside the index builds, and a failed build fails the reads still waiting", async () => {
    const indexer = new ResultIndexer(pool, new AbortController().signal);
    indexer.setSlots(2);
    indexer.add(TABLE, COLUMNS);
    const [count, levels] = await Promise.all([
      indexer.query<{ n: string }>(TABLE, `SELECT count(*) AS n FROM ${TABLE} WHERE cp_failed_a`),
      indexer.query<{ level: string; n: string }>(TABLE, `SELECT risk_level AS level, count(*) AS n FROM ${TABLE} GROUP BY 1 ORDER BY 1`),
    ]);
    expect(Number(count.rows[0].n)).toBe(100);
    expect(levels.rows.map((r) => [r.level, Number(r.n)])).toEqual([["LOW", 19800], ["MEDIUM", 200]]);
    await indexer.done();

    const failing = new ResultIndexer(pool, new AbortController().signal);
    failing.add("results.ix_missing", COLUMNS);
    const read = failing.query(TABLE, "SELECT 1");
    await expect(failing.done()).rejects.toThrow(/ix_missing/);
    await expect(read).rejects.toThrow(/ix_missing/);
    await expect(failing.query(TABLE, "SELECT 1")).rejects.toThrow(/ix_missing/);
  });
});
