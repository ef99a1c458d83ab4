import { int, num, table } from "../sql.js";
import { createTableAs, engineTransaction, type EngineStep, type StepContext } from "../steps.js";
import { excessScore, FIRST_TWO_DIGITS, glContext, type GlContext } from "./context.js";
import { ramp } from "../sql.js";

/**
 * The statistics the statistical and machine-learning entry points compare each entry with, one
 * table per control point (kept with the result: explain quotes them). Each is one aggregate pass
 * over the sources; tables keep only the rows that score, so joining them to a million entries is
 * a probe into a small hash table.
 */
interface Statistic {
  points: string[];
  table: string;
  sql(ctx: GlContext): string;
}

const benfordExpected = (d2: string) => `log(1 + 1.0 / ${d2})`;

const STATISTICS: Statistic[] = [
  {
    // Per account: mean and spread of ln|amount| (Unusual Amount; the amount feature of Outlier Anomaly).
    points: ["journal_entry_flat_unusual_amount_v4"],
    table: "amount",
    sql: (ctx) => `WITH s AS (${ctx.sources})
      SELECT s.account, count(*)::integer AS n, avg(ln(abs(s.amount)::float8)) AS mean, stddev_samp(ln(abs(s.amount)::float8)) AS sd,
             sum(abs(s.amount))::bigint AS activity
        FROM s WHERE s.amount <> 0 GROUP BY s.account`,
  },
  {
    points: ["journal_entry_two_digit_benford_v2"],
    table: "benford",
    sql: (ctx) => {
      const p = "journal_entry_two_digit_benford_v2";
      const ratio = Number(ctx.setting(p, "excessRatio"));
      return `WITH s AS (${ctx.sources}),
        c AS (SELECT ${FIRST_TWO_DIGITS("s.amount")} AS d2, count(*)::float8 AS n FROM s WHERE s.amount >= 1000 GROUP BY 1),
        t AS (SELECT sum(n) AS total FROM c),
        x AS (SELECT c.d2, c.n, t.total, ${benfordExpected("c.d2")} AS p FROM c, t)
        SELECT d2, n::integer AS observed, round(total * p)::integer AS expected, ${excessScore("n / (total * p)", ratio)}::integer AS score
          FROM x
         WHERE total >= ${int(ctx.setting(p, "minimumEntries"))} AND n > total * p
           AND (n - total * p) / sqrt(total * p * (1 - p)) >= ${num(ctx.setting(p, "minimumZ"))}
           AND ${excessScore("n / (total * p)", ratio)} > 0`;
    },
  },
  {
    points: ["journal_entry_flat_sos_v2"],
    table: "sos",
    sql: (ctx) => {
      const p = "journal_entry_flat_sos_v2";
      const ratio = Number(ctx.setting(p, "excessRatio"));
      return `WITH s AS (${ctx.sources}),
        c AS (SELECT s.account, ${FIRST_TWO_DIGITS("s.amount")} AS d2, count(*)::float8 AS n FROM s WHERE abs(s.amount) >= 1000 GROUP BY 1, 2),
        t AS (SELECT account, sum(n) AS total FROM c GROUP BY account HAVING sum(n) >= ${int(ctx.setting(p, "minimumEntries"))}),
        x AS (SELECT c.account, c.d2, c.n, t.total, ${benfordExpected("c.d2")} AS p FROM c JOIN t USING (account))
        SELECT account, d2, n::integer AS observed, round(total * p)::integer AS expected, ${excessScore("n / (total * p)", ratio)}::integer AS score
          FROM x
         WHERE n > total * p AND (n - total * p) / sqrt(total * p * (1 - p)) >= ${num(ctx.setting(p, "minimumZ"))} AND ${excessScore("n / (total * p)", ratio)} > 0`;
    },
  },
  {
    // Per account and reporting period: net activity against the account's other periods (leave one
    // out: a period is compared with the mean and spread of the others), and count and absolute
    // activity against the prior period.
    points: ["group_by_trendshock", "prior_period_frequency", "prior_period_dollar_change"],
    table: "trend",
    sql: (ctx) => {
      const t = "group_by_trendshock";
      const f = "prior_period_frequency";
      const d = "prior_period_dollar_change";
      const fRatio = Math.max(Number(ctx.setting(f, "ratio")) - 1, 0.01);
      const dRatio = Math.max(Number(ctx.setting(d, "ratio")) - 1, 0.01);
      const z = `abs(m.net - (st.total - m.net) / (st.months - 1)) / nullif(sqrt(greatest((st.sumsq - m.net * m.net - (st.total - m.net) ^ 2 / (st.months - 1)) / greatest(st.months - 2, 1), 0)), 0)`;
      return `WITH s AS (${ctx.sources}),
        m AS (SELECT s.account, ${ctx.periods.reportingStart("s.effective_date")} AS rp, sum(s.amount)::float8 AS net, count(*)::integer AS n, sum(abs(s.amount))::float8 AS act
                FROM s GROUP BY 1, 2),
        st AS (SELECT account, count(*)::float8 AS months, sum(net) AS total, sum(net * net) AS sumsq FROM m GROUP BY account),
        first AS (SELECT min(rp) AS rp FROM m),
        scored AS (
          SELECT m.account, m.rp, m.n, m.act, m.net, (st.total - m.net) / nullif(st.months - 1, 0) AS others_mean, p.n AS prior_n, p.act AS prior_act,
                 CASE WHEN ${ctx.runs(t) ? "TRUE" : "FALSE"} AND st.months >= ${int(ctx.setting(t, "minimumMonths"))}
                      THEN coalesce(${ramp(z, Number(ctx.setting(t, "zFrom")), Number(ctx.setting(t, "zTo")))}, 0) ELSE 0 END::integer AS trend,
                 CASE WHEN m.rp > first.rp AND m.n >= ${int(ctx.setting(f, "minimumEntries"))}
                      THEN least(10000, greatest(0, round((m.n::float8 / greatest(coalesce(p.n, 0), 1) - 1) * 5000 / ${fRatio}))) ELSE 0 END::integer AS frequency,
                 CASE WHEN m.rp > first.rp AND m.act - coalesce(p.act, 0) >= ${int(ctx.setting(d, "minimumChange"))}
                      THEN least(10000, greatest(0, round((m.act / greatest(coalesce(p.act, 0), 1) - 1) * 5000 / ${dRatio}))) ELSE 0 END::integer AS dollar
            FROM m JOIN st USING (account) CROSS JOIN first
            LEFT JOIN m p ON p.account = m.account AND p.rp = ${ctx.periods.previousReportingStart("m.rp")})
        SELECT * FROM scored WHERE trend > 0 OR frequency > 0 OR dollar > 0`;
    },
  },
  {
    // Outlier Anomaly: the user and the weekday of an entry are rare for its account.
    points: [],
    table: "iso_user",
    sql: (ctx) => {
      const p = "journal_entry_isolation_forest";
      const share = Number(ctx.setting(p, "rareShare"));
      return `WITH s AS (${ctx.sources}),
        n AS (SELECT account, count(*)::float8 AS n FROM s GROUP BY account HAVING count(*) >= ${num(Math.ceil(1 / Math.max(share, 1e-6)))}),
        c AS (SELECT s.account, s.user_id, count(*)::float8 AS k FROM s WHERE s.user_id IS NOT NULL GROUP BY 1, 2)
        SELECT c.account, c.user_id, c.k::integer AS entries, n.n::integer AS account_entries FROM c JOIN n USING (account) WHERE c.k <= n.n * ${num(share)}`;
    },
  },
  {
    points: ["journal_entry_isolation_forest"],
    table: "iso_dow",
    sql: (ctx) => {
      const p = "journal_entry_isolation_forest";
      const share = Number(ctx.setting(p, "rareShare"));
      return `WITH s AS (${ctx.sources}),
        n AS (SELECT account, count(*)::float8 AS n FROM s GROUP BY account HAVING count(*) >= ${num(Math.ceil(1 / Math.max(share, 1e-6)))}),
        c AS (SELECT s.account, extract(isodow FROM s.effective_date)::integer AS dow, count(*)::float8 AS k FROM s GROUP BY 1, 2)
        SELECT c.account, c.dow, c.k::integer AS entries, n.n::integer AS account_entries FROM c JOIN n USING (account) WHERE c.k <= n.n * ${num(share)}`;
    },
  },
  {
    // Expense Flurry: expense debits per time window, against the other windows (leave one out).
    points: ["journal_entry_nfp_expense_flurry"],
    table: "flurry",
    sql: (ctx) => flurrySql(ctx, "journal_entry_nfp_expense_flurry", false),
  },
  {
    points: ["journal_entry_nfp_fund_expense_flurry"],
    table: "fund_flurry",
    sql: (ctx) => flurrySql(ctx, "journal_entry_nfp_fund_expense_flurry", true),
  },
  {
    points: ["journal_entry_nfp_split_expense_multiple"],
    table: "split",
    sql: (ctx) => {
      const threshold = int(ctx.setting("journal_entry_nfp_split_expense_multiple", "threshold"));
      return `WITH s AS (${ctx.sources})
        SELECT s.account, coalesce(s.user_id, '') AS user_key, s.effective_date, count(DISTINCT s.txid)::integer AS transactions, sum(s.amount)::bigint AS total
          FROM s ${ctx.accountJoin("s")}
         WHERE a.is_expense AND s.amount > 0 AND s.amount < ${threshold}
         GROUP BY 1, 2, 3
        HAVING count(DISTINCT s.txid) >= 2 AND sum(s.amount) >= ${threshold}`;
    },
  },
];

function flurrySql(ctx: GlContext, point: string, perFund: boolean): string {
  const window = Math.max(1, Number(ctx.setting(point, "windowDays")));
  const fund = perFund ? "coalesce(s.fund_id, '')" : "''";
  const z = `(w.total - (g.total - w.total) / (g.windows - 1)) / nullif(sqrt(greatest((g.sumsq - w.total * w.total - (g.total - w.total) ^ 2 / (g.windows - 1)) / greatest(g.windows - 2, 1), 0)), 0)`;
  return `WITH s AS (${ctx.sources}),
    w AS (SELECT ${fund} AS fund_key, (s.effective_date - date '2000-01-01') / ${window} AS bucket, sum(s.amount)::float8 AS total
            FROM s ${ctx.accountJoin("s")} WHERE a.is_expense AND s.amount > 0 GROUP BY 1, 2),
    g AS (SELECT fund_key, count(*)::float8 AS windows, sum(total) AS total, sum(total * total) AS sumsq FROM w GROUP BY fund_key HAVING count(*) >= 5),
    x AS (SELECT w.fund_key, w.bucket, w.total, coalesce(${ramp(z, Number(ctx.setting(point, "zFrom")), Number(ctx.setting(point, "zTo")))}, 0)::integer AS score FROM w JOIN g USING (fund_key))
    SELECT fund_key, bucket, total::bigint AS total, score FROM x WHERE score > 0`;
}

export const glStatisticsStep: EngineStep = {
  name: "statistics",
  points: STATISTICS.flatMap((s) => s.points),
  cost: 4,
  async run(step: StepContext) {
    const ctx = await glContext(step.pool, step.plan);
    for (const statistic of STATISTICS) {
      step.signal.throwIfAborted();
      const runs = statistic.points.length === 0 ? ctx.runs("journal_entry_isolation_forest") : statistic.points.some((p) => ctx.runs(p));
      const name = step.plan.tables.stat(statistic.table);
      await engineTransaction(step.pool, async (client) => {
        if (runs) await createTableAs(client, name, statistic.sql(ctx));
        else await client.query(`DROP TABLE IF EXISTS ${table(name)}`);
      });
      step.pointsDone(statistic.points);
    }
  },
};

/** Whether the statistic table of a control point exists in this run (joined only then). */
export function statisticTable(ctx: GlContext, name: string): string | null {
  const owner = STATISTICS.find((s) => s.table === name);
  if (!owner) return null;
  const runs = owner.points.length === 0 ? ctx.runs("journal_entry_isolation_forest") : owner.points.some((p) => ctx.runs(p));
  return runs ? table(ctx.plan.tables.stat(name)) : null;
}
