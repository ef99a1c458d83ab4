import type pg from "pg";
import { col } from "../columns.js";
import { createTypeaheadTable, indexOnly, markCommonValues, markRareFlags, RISK_LEVELS, summarize, TYPEAHEAD_COLUMNS, type PublishedTable, type ResultSummary, type TableQuery, type TableShape } from "../publish.js";
import type { RunPlan } from "../run-plan.js";
import { engineTransaction, type EngineStep } from "../steps.js";
import { table } from "../sql.js";
import { glContext } from "./context.js";
import { glEntriesStep } from "./entries.js";
import { flowPoints, glFlowsStep } from "./flows.js";
import { glPrepareStep } from "./prepare.js";
import { glScoresStep, glScoresTxStep, linesLayout, transactionLayout } from "./scores.js";
import { glStatisticsStep } from "./statistics.js";
import { glTransactionsStep } from "./transactions.js";

/** Typeahead tables of the entries: distinct values of a column with their entry counts. */
const TYPEAHEADS = [
  { key: "account", fields: [{ table: "lines", field: "account" }] },
  { key: "user_id", fields: [{ table: "lines", field: "user_id" }, { table: "transactions", field: "user_id" }] },
  { key: "type", fields: [{ table: "lines", field: "type" }, { table: "transactions", field: "type" }] },
] as const;

const glTypeaheadStep: EngineStep = {
  name: "typeahead",
  points: [],
  cost: 1,
  durable: true,
  // The accounts, the amount statistics' counts and the base entries: beside the transactions step.
  after: ["prepare", "statistics", "entries"],
  async run({ pool, plan }) {
    const ctx = await glContext(pool, plan);
    await engineTransaction(pool, async (client) => {
      const counts = table(plan.tables.stat("amount"));
      const hasCounts = (await client.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [plan.tables.stat("amount")])).rows[0].ok;
      await createTypeaheadTable(
        client,
        plan.tables.typeahead("account"),
        `SELECT a.account AS lookup_id, concat_ws(' ', a.account, max(a.description)) AS display_name, ${hasCounts ? "max(c.n)" : "NULL::integer"} AS entries
           FROM ${ctx.accounts} a ${hasCounts ? `LEFT JOIN ${counts} c ON c.account = a.account` : ""} GROUP BY a.account`,
      );
      const base = table(plan.tables.base);
      await client.query(`DROP TABLE IF EXISTS ${table(plan.tables.work("values"))}`);
      await client.query(
        `CREATE TABLE ${table(plan.tables.work("values"))} AS SELECT user_id, type, count(*)::integer AS n FROM ${base} GROUP BY GROUPING SETS ((user_id), (type))`,
      );
      for (const key of ["user_id", "type"] as const) {
        const other = key === "user_id" ? "type" : "user_id";
        await createTypeaheadTable(
          client,
          plan.tables.typeahead(key),
          `SELECT ${key} AS lookup_id, ${key} AS display_name, n AS entries FROM ${table(plan.tables.work("values"))} WHERE ${key} IS NOT NULL AND ${other} IS NULL`,
        );
      }
      await client.query(`DROP TABLE ${table(plan.tables.work("values"))}`);
    });
  },
};

export const GL_STEPS: EngineStep[] = [glPrepareStep, glStatisticsStep, glEntriesStep, glTransactionsStep, glFlowsStep, glScoresTxStep, glScoresStep, glTypeaheadStep];

async function rowCount(pool: pg.Pool, name: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table(name)}`);
  return Number(rows[0].n);
}

/**
 * The result's published tables as the steps leave them: their columns before the summary marks
 * rare flags (markRareFlags), and the step after which each is final, so the run can index a table
 * while later steps still run.
 */
export async function glTableShapes(pool: pg.Pool, plan: RunPlan): Promise<TableShape[]> {
  const ctx = await glContext(pool, plan);
  const lines = linesLayout(ctx).map((l) => l.column);
  const transactions = transactionLayout(plan, "'{}'::jsonb").map((l) => l.column);
  const flows = [
    col.rowid(),
    col.key("txid", { platformField: "txid" }),
    col.date("effective_date", { platformField: "effective_date" }),
    col.level("flow_type"),
    col.key("debit_account"),
    col.key("credit_account"),
    col.money("amount"),
    col.flag("unknown_flow"),
    ...flowPoints(plan).flatMap((p) => {
      const name = plan.points[p.index].definition.name;
      return [col.flag(`cp_failed_${name}`), col.score(`cp_score_${name}`)];
    }),
  ];
  return [
    { key: "lines", logicalName: "gl_journal_lines", type: "entries", apiStability: "STABLE", table: plan.tables.lines, columns: indexOnly(lines, ["rowid", "txid", "account", "risk"]), after: "scores" },
    { key: "transactions", logicalName: "gl_journal_tx", type: "transactions", apiStability: "STABLE", table: plan.tables.tx, columns: indexOnly(transactions, ["rowid", "txid", "risk"]), after: "scores-tx" },
    { key: "flows", logicalName: "flows_compact", type: "flows_compact", apiStability: "STABLE", table: plan.tables.flows, columns: indexOnly(flows, ["rowid", "txid", "debit_account", "credit_account"]), after: "flows" },
    ...TYPEAHEADS.map((t): TableShape => ({
      key: `typeahead_${t.key}`,
      logicalName: `typeahead_${t.key}`,
      type: "typeahead",
      apiStability: "UNSTABLE",
      table: plan.tables.typeahead(t.key),
      columns: TYPEAHEAD_COLUMNS,
      typeaheadFor: t.fields.map((f) => ({ ...f })),
      after: "typeahead",
    })),
  ];
}

/** The result's tables as data tables, and the score summary (counts per level and per control point). */
export async function glPublication(pool: pg.Pool, plan: RunPlan, query?: TableQuery): Promise<{ tables: PublishedTable[]; summary: ResultSummary }> {
  const [shapes, summary] = await Promise.all([glTableShapes(pool, plan), summarize(pool, plan, { entries: plan.tables.lines, transactions: plan.tables.tx, flows: plan.tables.flows, ownMask: true, query })]);
  const published: PublishedTable[] = [];
  for (const { after: _after, ...shape } of shapes) {
    // risk_level and flow_type are indexed only for their rare values, which the summary counts.
    if (shape.key === "lines") {
      const { total, byRiskLevel } = summary.entries;
      published.push({ ...shape, columns: markCommonValues(markRareFlags(shape.columns, summary, total, "entries"), "risk_level", RISK_LEVELS, byRiskLevel, total), rowCount: total });
    } else if (shape.key === "transactions") {
      const { total, byRiskLevel } = summary.transactions ?? { total: 0, byRiskLevel: {} };
      published.push({ ...shape, columns: markCommonValues(markRareFlags(shape.columns, summary, total, "transactions"), "risk_level", RISK_LEVELS, byRiskLevel, total), rowCount: total });
    } else if (shape.key === "flows") {
      const { total, simple, complex } = summary.flows ?? { total: 0, simple: 0, complex: 0 };
      published.push({ ...shape, columns: markCommonValues(shape.columns, "flow_type", ["SIMPLE", "COMPLEX"], { SIMPLE: simple, COMPLEX: complex }, total), rowCount: total });
    }
    else published.push({ ...shape, rowCount: await rowCount(pool, shape.table) });
  }
  return { tables: published, summary };
}
