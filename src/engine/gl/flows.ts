import type pg from "pg";
import { EXPERT_SCORES, type ExpertRule } from "../control-points/index.js";
import type { RunPlan } from "../run-plan.js";
import { createTableAs, engineTransaction, sideBySide, type EngineStep } from "../steps.js";
import { ident, int, ramp, table, text } from "../sql.js";
import { glContext, rarityScore, type GlContext } from "./context.js";
import { failedExpression } from "../scoring.js";
import { exactPairs, flowsSql } from "./flow-amounts.js";

/** Flow-level control points: the 5 built-in ones, then the published custom ones. */
export function flowPoints(plan: RunPlan): Array<{ name: string; column: string; index: number }> {
  return plan.points
    .filter((p) => p.definition.level === "FLOW" && p.available)
    .map((p) => ({ name: p.definition.name, column: `f${p.index}`, index: p.index }));
}

/**
 * Flows are computed per transaction: the transactions are split in the two HALVES of the base
 * entries' partitions (baseHalves), each half's sides, flows and exact pairs written on its own
 * connection side by side (these statements read CTEs several times, so each runs in one process),
 * and the halves' flow tables read together by the pairs and scored flows, which compute every
 * cross-transaction statistic and score a half on each connection again.
 */
const HALVES = 2;

/** The halves' flow tables as one relation. */
function allFlows(plan: RunPlan): string {
  return `(${Array.from({ length: HALVES }, (_x, i) => `SELECT * FROM ${table(plan.tables.work(`flows${i}`))}`).join(" UNION ALL ")})`;
}

/** Flows of a pair expected if debit and credit accounts paired at random, given their overall flows. */
const EXPECTED = "(x.from_flows::float8 * x.to_flows / x.total_flows)";

/** `code` names the account: `*`, the account id, one of its engagement group codes or MAC codes (prefixes). */
function matches(code: string, alias: string): string {
  if (code === "*") return "TRUE";
  return `(${alias}.account = ${text(code)} OR ${text(code)} = ANY(${alias}.codes) OR ${text(code)} = ANY(${alias}.mac_codes))`;
}

/**
 * The rules' codes as columns of the accounts (`matches` once per account and code), so a pair's
 * rules read two booleans per rule instead of searching both accounts' code arrays: at 160,000
 * pairs and seven rules the searches were 1.6 of the pairs statement's 2.5 s (load 11).
 */
class RuleCodes {
  private readonly columns = new Map<string, string>();
  /** The match of `code` for the account joined as `alias` (NULL when no account joined, as `matches` then is). */
  match(code: string, alias: string): string {
    if (code === "*") return "TRUE";
    if (!this.columns.has(code)) this.columns.set(code, `m${this.columns.size}`);
    return `${alias}.${this.columns.get(code)}`;
  }
  /** The match columns over the account row `alias`. */
  select(alias: string): string {
    return [...this.columns].map(([code, column]) => `, ${matches(code, alias)} AS ${column}`).join("");
  }
}

function rulesScore(codes: RuleCodes, rules: readonly ExpertRule[], unexpected: keyof typeof EXPERT_SCORES | null | undefined): string {
  const parts = rules.map((r) => `CASE WHEN ${codes.match(r.debit, "da")} AND ${codes.match(r.credit, "ca")} THEN ${EXPERT_SCORES[r.rating]} ELSE 0 END`);
  const best = parts.length === 0 ? "0" : parts.length === 1 ? parts[0] : `greatest(${parts.join(", ")})`;
  if (!unexpected) return best;
  const any = rules.length === 0 ? "FALSE" : rules.map((r) => `(${codes.match(r.debit, "da")} AND ${codes.match(r.credit, "ca")})`).join(" OR ");
  return `CASE WHEN ${any} THEN ${best} ELSE ${EXPERT_SCORES[unexpected]} END`;
}

/**
 * The flows of one account pair added up: how often, the mean and spread of ln(amount), for the
 * pairs whose key hash (the flows' `pair_hash`, NULL unless both accounts are known) falls in
 * `part` of PAIR_PARTS (each part on its own connection). The mean
 * and spread add the flows in order of ln(amount): floating-point sums in the order the flows
 * happen to be stored would change in the last bits whenever the flows statement's plan does.
 * The sort that orders them is the step's largest: it sorts on a hash of the pair first and on
 * the accounts in byte order ("C") next, not on two texts in the database's collation (the same
 * groups: the collation is deterministic, so equal means equal bytes).
 */
function pairPartSql(plan: RunPlan, part: number): string {
  return `SELECT any_value(debit_account) AS debit_account, any_value(credit_account) AS credit_account, count(*)::integer AS n, avg(l ORDER BY l) AS mean, stddev_samp(l ORDER BY l) AS sd
      FROM (SELECT pair_hash AS h, ln(amount::float8) AS l, debit_account, credit_account FROM ${allFlows(plan)} f WHERE pair_hash & ${PAIR_PARTS - 1} = ${part}) f
     GROUP BY h, debit_account COLLATE "C", credit_account COLLATE "C"`;
}

/** Parts of the pairs, each added up on its own connection (a power of two). */
const PAIR_PARTS = 2;

/**
 * One row per account pair that exchanges money, with the pair-level scores (rare bucket pair,
 * unlikely credit account given the debit account, expert and custom rules, cash to bad debt), in
 * PAIR_PARTS parts, each on its own connection: `part` adds up the part's flows (pairPartSql) and
 * gives each pair its accounts' buckets and the scores that read the two accounts only; `scored`
 * joins the part's pairs to the totals over all parts (per bucket pair, per debit and per credit
 * account: small grouped tables joined back, window functions sorted every pair three times) for
 * the other scores. (The totals and the accounts over all the pairs in one statement after the
 * parts left a core idle.)
 */
function pairsSql(ctx: GlContext): { part(part: number): string; scored(part: number): string } {
  const plan = ctx.plan;
  const level = int(ctx.setting("journal_entry_flat_gifi_bucket_rarity", "level"));
  const bucket = (alias: string) => `coalesce(${alias}.mac_codes[least(${level}, cardinality(${alias}.mac_codes))], 'unmapped')`;
  const minimum = int(ctx.setting("markov_chain", "minimumFlows"));
  // Each score is computed in the part (`accounts`: from the two accounts) or with the totals.
  const scores: Array<{ column: string; expression: string; accounts: boolean }> = [];
  const codes = new RuleCodes();
  for (const p of flowPoints(plan)) {
    switch (p.name) {
      case "journal_entry_flat_gifi_bucket_rarity":
        scores.push({ column: p.column, accounts: false, expression: rarityScore("x.bucket_flows::float8 / x.total_flows", Number(ctx.setting(p.name, "rareShare"))) });
        break;
      case "markov_chain":
        scores.push({ column: p.column, accounts: false, expression: `CASE WHEN x.from_flows >= ${minimum} AND ${EXPECTED} >= 5 THEN ${rarityScore(`x.n / ${EXPECTED}`, Number(ctx.setting(p.name, "rareRatio")))} ELSE 0 END` });
        break;
      case "journal_entry_flat_expert_flow_v2":
        scores.push({ column: p.column, accounts: true, expression: rulesScore(codes, (ctx.setting<ExpertRule[]>(p.name, "rules") ?? []) as ExpertRule[], null) });
        break;
      case "journal_entry_cash_to_bad_debt":
        scores.push({ column: p.column, accounts: true, expression: "CASE WHEN (da.is_cash AND ca.is_bad_debt) OR (da.is_bad_debt AND ca.is_cash) THEN 10000 ELSE 0 END" });
        break;
      case "journal_entry_flow_analysis":
        break; // per flow, from the pair's mean and spread
      default: {
        const custom = plan.spec.customControlPoints.find((c) => c.id === p.name);
        if (custom) scores.push({ column: p.column, accounts: true, expression: rulesScore(codes, custom.rules, custom.unexpectedFlowRating) });
      }
    }
  }
  const accounts = `(SELECT DISTINCT ON (account) account, codes, mac_codes, is_cash, is_bad_debt FROM ${ctx.accounts} ORDER BY account, fund_key)`;
  const matched = `(SELECT a.*${codes.select("a")} FROM ${accounts} a)`;
  const parts = Array.from({ length: PAIR_PARTS }, (_x, i) => `SELECT * FROM ${table(plan.tables.work(`pairs${i}`))}`).join(" UNION ALL ");
  return {
    part: (part) => `SELECT s.*, ${bucket("da")} AS debit_bucket, ${bucket("ca")} AS credit_bucket${scores
      .filter((x) => x.accounts)
      .map((x) => `,\n           (${x.expression})::smallint AS ${ident(x.column)}`)
      .join("")}
      FROM (${pairPartSql(plan, part)}) s LEFT JOIN ${matched} da ON da.account = s.debit_account LEFT JOIN ${matched} ca ON ca.account = s.credit_account`,
    // The totals in one pass over the parts' pairs (grouping sets, `g` saying which): as four
    // aggregates of the parts materialized once, they cost 0.36 instead of 0.26 CPU-s per part.
    scored: (part) => `WITH t AS (SELECT debit_bucket, credit_bucket, debit_account, credit_account, GROUPING(debit_bucket, credit_bucket, debit_account, credit_account) AS g, sum(n) AS n
                 FROM (${parts}) p GROUP BY GROUPING SETS ((debit_bucket, credit_bucket), (debit_account), (credit_account), ())),
      x AS (SELECT b.*, bf.n AS bucket_flows, (SELECT n FROM t WHERE g = 15) AS total_flows, ff.n AS from_flows, tf.n AS to_flows
              FROM ${table(plan.tables.work(`pairs${part}`))} b JOIN (SELECT debit_bucket, credit_bucket, n FROM t WHERE g = 3) bf USING (debit_bucket, credit_bucket)
              JOIN (SELECT debit_account, n FROM t WHERE g = 13) ff USING (debit_account)
              JOIN (SELECT credit_account, n FROM t WHERE g = 14) tf USING (credit_account))
    SELECT x.debit_account, x.credit_account, x.n, x.mean, x.sd, x.debit_bucket, x.credit_bucket, x.bucket_flows::integer, x.total_flows::integer, x.from_flows::integer, x.to_flows::integer${scores
      .map((x) => `,\n           ${x.accounts ? `x.${ident(x.column)}` : `(${x.expression})::smallint`} AS ${ident(x.column)}`)
      .join("")}
      FROM x`,
  };
}

/**
 * The flows of one half with their flow-level scores (published as `flows_compact`), numbered
 * after the first half's: the rows the statement over both halves numbered the same (it read the
 * first half, then the second).
 */
function scoredFlowsSql(ctx: GlContext, half: number): string {
  const plan = ctx.plan;
  const columns = flowScores(ctx).map((c) => `${c.expression} AS ${ident(c.column)}`);
  const points = flowPoints(plan);
  const published = points.map((p) => {
    const point = plan.points[p.index];
    return `q.${ident(p.column)} AS ${ident(`cp_score_${point.definition.name}`)}, ${failedExpression(plan, point, `q.${ident(p.column)}`)} AS ${ident(`cp_failed_${point.definition.name}`)}`;
  });
  const before = Array.from({ length: half }, (_x, i) => ` + (SELECT count(*) FROM ${table(plan.tables.work(`flows${i}`))})`).join("");
  return `SELECT q.row_no, q.tx, q.txid, q.effective_date, q.flow_type, q.debit_account, q.credit_account, q.amount, q.unknown_flow${published.map((c) => `, ${c}`).join("")}
    FROM (SELECT row_number() OVER ()${before} AS row_no, f.tx, f.txid, f.effective_date, f.flow_type, f.debit_account, f.credit_account, f.amount,
                 (f.debit_account IS NULL OR f.credit_account IS NULL) AS unknown_flow${columns.map((c) => `,\n                 ${c}`).join("")}
            FROM ${flowsWithPairs(plan, table(plan.tables.work(`flows${half}`)))}) q`;
}

/** A flow's score per flow-level point (its pair's, or from its amount against its pair's), over flowsWithPairs. */
function flowScores(ctx: GlContext): Array<{ column: string; expression: string }> {
  return flowPoints(ctx.plan).map((p) => {
    if (p.name === "journal_entry_flow_analysis") {
      const z = "(CASE WHEN pr.sd > 0 THEN abs(ln(f.amount::float8) - pr.mean) / pr.sd END)";
      const expression = `coalesce(CASE WHEN pr.n >= ${int(ctx.setting(p.name, "minimumFlows"))} THEN ${ramp(z, Number(ctx.setting(p.name, "zFrom")), Number(ctx.setting(p.name, "zTo")))} END, 0)`;
      return { column: p.column, expression: `(${expression})::smallint` };
    }
    return { column: p.column, expression: `coalesce(pr.${ident(p.column)}, 0)::smallint` };
  });
}

/** The flows `f` (default: both halves'), each with its pair `pr` (if both accounts are known). */
function flowsWithPairs(plan: RunPlan, flows = allFlows(plan)): string {
  return `${flows} f LEFT JOIN ${table(plan.tables.work("pairs"))} pr ON pr.debit_account = f.debit_account AND pr.credit_account = f.credit_account`;
}

/**
 * Per transaction, whether a flow is complex or unknown and the highest score of each point (the
 * scores step's flowmax), from the scored flows `scored` (scoredFlowsSql's rows): the same maxima
 * as from the flows joined to their pairs (flowMaximaSql, which gives the table its columns).
 */
function flowMaximaOf(ctx: GlContext, scored: string): string {
  const maxima = flowPoints(ctx.plan).map((p) => `max(${ident(`cp_score_${ctx.plan.points[p.index].definition.name}`)})::smallint AS ${ident(p.column)}`);
  return `SELECT tx, bool_or(flow_type = 'COMPLEX') AS complex, bool_or(unknown_flow) AS unknown_flow${maxima.map((m) => `, ${m}`).join("")} FROM ${scored} GROUP BY tx`;
}

/** The flow maxima from the halves' flows joined to their pairs (as flowMaximaOf has them). */
function flowMaximaSql(ctx: GlContext): string {
  const maxima = flowScores(ctx).map((c) => `max(${c.expression})::smallint AS ${ident(c.column)}`);
  return `SELECT f.tx, bool_or(f.flow_type = 'COMPLEX') AS complex, bool_or(f.debit_account IS NULL OR f.credit_account IS NULL) AS unknown_flow${maxima.map((m) => `, ${m}`).join("")}
    FROM ${flowsWithPairs(ctx.plan)} GROUP BY f.tx`;
}

/**
 * Two engine transactions side by side (no parallel workers, no merge joins): `second`, and
 * `first`, which is handed the second's promise to wait for its committed work (`second` asks the
 * pool for its connection first, so `first` never waits holding the last one). Both have settled
 * before this resolves or rejects: no statement outlives the step.
 */
async function bothHalves(pool: pg.Pool, second: (client: pg.PoolClient) => Promise<void>, first: (client: pg.PoolClient, second: Promise<void>) => Promise<void>): Promise<void> {
  const lane = (work: (client: pg.PoolClient) => Promise<void>) =>
    engineTransaction(pool, async (client) => {
      await client.query("SET LOCAL enable_mergejoin = off; SET LOCAL max_parallel_workers_per_gather = 0");
      await work(client);
    });
  const done = lane(second);
  const failed = (await Promise.allSettled([done, lane((client) => first(client, done))])).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

export const glFlowsStep: EngineStep = {
  name: "flows",
  points: ["journal_entry_flat_gifi_bucket_rarity", "markov_chain", "journal_entry_flat_expert_flow_v2", "journal_entry_cash_to_bad_debt", "journal_entry_flow_analysis"],
  cost: 6,
  async run({ pool, plan, pointsDone }) {
    const ctx = await glContext(pool, plan);
    await sideBySide(
      HALVES,
      Array.from({ length: HALVES }, (_x, half) => () => {
        const sql = flowsSql(plan, ctx.facts, half);
        return engineTransaction(pool, async (client) => {
          // The remainder and its totals are CTEs estimated at a few rows: a merge join would sort a million of them.
          // One process per half: the two halves keep both cores busy, and a parallel worker is a fresh
          // process whose first touch of each shared buffer page costs a fault (docs/architecture.md).
          await client.query("SET LOCAL enable_mergejoin = off; SET LOCAL max_parallel_workers_per_gather = 0");
          // The sides sorted by transaction (a sort and a grouped pass rather than a hash table): the
          // flows statement's hash joins on tx then probe one transaction's rows one after another.
          await client.query("SET LOCAL enable_hashagg = off");
          await createTableAs(client, plan.tables.work(`sides${half}`), sql.sides);
          await client.query("SET LOCAL enable_hashagg = on");
          await createTableAs(client, plan.tables.work(`flows${half}`), sql.flows, { analyze: false });
          await exactPairs(client, plan, ctx.facts, half);
          await client.query(`DROP TABLE ${table(plan.tables.work(`sides${half}`))}`);
        });
      }),
    );
    const pairs = pairsSql(ctx);
    await sideBySide(
      PAIR_PARTS,
      Array.from({ length: PAIR_PARTS }, (_x, part) => async () => {
        await engineTransaction(pool, async (client) => {
          await client.query("SET LOCAL enable_mergejoin = off; SET LOCAL max_parallel_workers_per_gather = 0");
          await createTableAs(client, plan.tables.work(`pairs${part}`), pairs.part(part), { analyze: false });
        });
      }),
    );
    // The scored pairs a part on each connection, as the published flows below: the first part
    // into the kept pairs table, the second into a work table copied in after.
    const pairsB = plan.tables.work("pairsb");
    await bothHalves(
      pool,
      (client) => createTableAs(client, pairsB, pairs.scored(1), { analyze: false }).then(() => undefined),
      async (client, second) => {
        await createTableAs(client, plan.tables.work("pairs"), pairs.scored(0), { analyze: false });
        await second;
        await client.query(`INSERT INTO ${table(plan.tables.work("pairs"))} SELECT * FROM ${table(pairsB)}`);
        await client.query(`ANALYZE ${table(plan.tables.work("pairs"))}`);
      },
    );
    await pool.query(`DROP TABLE ${[pairsB, ...Array.from({ length: PAIR_PARTS }, (_x, i) => plan.tables.work(`pairs${i}`))].map(table).join(", ")}`);
    // The published flows and the maxima per transaction, a half on each connection: the first
    // half's scored flows straight into the published table, the second's into a work table that
    // joins them once done (in the transaction that created the table: no WAL), each half's maxima
    // from its scored rows. (The published flows over both halves beside the maxima from the flows
    // joined again to their pairs left a core idle for a third of the time.)
    const flowmax = plan.tables.work("flowmax");
    const scored = plan.tables.work("scored1");
    await engineTransaction(pool, (client) => createTableAs(client, flowmax, `${flowMaximaSql(ctx)} WITH NO DATA`, { analyze: false }));
    await bothHalves(
      pool,
      async (client) => {
        await createTableAs(client, scored, scoredFlowsSql(ctx, 1), { analyze: false });
        await client.query(`INSERT INTO ${table(flowmax)} ${flowMaximaOf(ctx, table(scored))}`);
      },
      async (client, second) => {
        await createTableAs(client, plan.tables.flows, scoredFlowsSql(ctx, 0), { analyze: false });
        await client.query(`INSERT INTO ${table(flowmax)} ${flowMaximaOf(ctx, table(plan.tables.flows))}`);
        await second;
        await client.query(`INSERT INTO ${table(plan.tables.flows)} SELECT * FROM ${table(scored)}`);
      },
    );
    await pool.query(`DROP TABLE ${table(scored)}`);
    await pool.query(`DROP TABLE ${Array.from({ length: HALVES }, (_x, i) => table(plan.tables.work(`flows${i}`))).join(", ")}`);
    pointsDone([...this.points, ...plan.spec.customControlPoints.map((c) => c.id)]);
  },
};
