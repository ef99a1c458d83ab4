import { int, num, ramp, table } from "../sql.js";
import { createTableAs, engineTransaction, sideBySide, type EngineStep, type StepContext } from "../steps.js";
import { GL_COLUMNS, sourcePageHalves, sourcesSql } from "../source.js";
import { excessScore, FIRST_TWO_DIGITS, glContext, type GlContext } from "./context.js";

/**
 * The statistics the statistical and machine-learning entry points compare each entry with, one
 * table per control point (kept with the result: explain quotes them). Tables keep only the rows
 * that score, so joining them to a million entries is a probe into a small hash table.
 *
 * Most of them are counts and sums per account and one more key (first two digits, reporting
 * period, user, weekday): one scan of the sources computes them all as grouping sets into a small
 * work table (`Pass`), and each statistic is then a query over that table. Grouping sets run in
 * one process, so the scan is split into two halves by page, aggregated side by side on two
 * connections and added up (counts and sums add up exactly). The mean and spread of ln|amount|
 * do not add up that way and keep their own query; so do the not-for-profit expense points,
 * which join the accounts. Those run beside the halves' sum and the statistics over the pass.
 */
interface Statistic {
  points: string[];
  table: string;
  /** The grouping sets it reads from the shared pass (null: it reads the sources itself). */
  reads: Array<PassKey> | null;
  sql(ctx: GlContext, pass: Pass): string;
}

/** The keys of the shared pass besides the account, in the order of GROUPING(...). */
const KEYS = { d2: "d2", rp: "rp", user: "user_id", dow: "dow" } as const;
type PassKey = keyof typeof KEYS;
const KEY_ORDER: PassKey[] = ["d2", "rp", "user", "dow"];

/** The work table of the shared pass, and the condition selecting one grouping set of it. */
interface Pass {
  table: string;
  set(key: PassKey): string;
}

/** GROUPING(account, d2, rp, user_id, dow) of the set (account, key): a bit for each key left out. */
function groupingOf(key: PassKey): number {
  return KEY_ORDER.reduce((bits, k, i) => (k === key ? bits : bits | (1 << (KEY_ORDER.length - 1 - i))), 0);
}

const benfordExpected = (d2: string) => `log(1 + 1.0 / ${d2})`;

const STATISTICS: Statistic[] = [
  {
    // Per account: mean and spread of ln|amount| (Unusual Amount; the amount feature of Outlier Anomaly).
    points: ["journal_entry_flat_unusual_amount_v4"],
    table: "amount",
    reads: null,
    sql: (ctx) => `WITH s AS (${ctx.sources})
      SELECT s.account, count(*)::integer AS n, avg(ln(abs(s.amount)::float8)) AS mean, stddev_samp(ln(abs(s.amount)::float8)) AS sd,
             sum(abs(s.amount))::bigint AS activity
        FROM s WHERE s.amount <> 0 GROUP BY s.account`,
  },
  {
    points: ["journal_entry_two_digit_benford_v2"],
    table: "benford",
    reads: ["d2"],
    sql: (ctx, pass) => {
      const p = "journal_entry_two_digit_benford_v2";
      const ratio = Number(ctx.setting(p, "excessRatio"));
      // Debits of at least 10.00 only (the digits of the amounts as posted).
      return `WITH c AS (SELECT d2, sum(debits)::float8 AS n FROM ${pass.table} WHERE ${pass.set("d2")} AND d2 IS NOT NULL GROUP BY d2 HAVING sum(debits) > 0),
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
    reads: ["d2"],
    sql: (ctx, pass) => {
      const p = "journal_entry_flat_sos_v2";
      const ratio = Number(ctx.setting(p, "excessRatio"));
      // d2 is set exactly when |amount| >= 10.00.
      return `WITH c AS (SELECT account, d2, n::float8 AS n FROM ${pass.table} WHERE ${pass.set("d2")} AND d2 IS NOT NULL),
        t AS (SELECT account, sum(n) AS total FROM c GROUP BY account HAVING sum(n) >= ${int(ctx.setting(p, "minimumEntries"))}),
        -- The expected share once per digit pair: inlined, the numeric log ran four times per row (2 s at 1M lines).
        e AS MATERIALIZED (SELECT d2, ${benfordExpected("d2")} AS p FROM (SELECT DISTINCT d2 FROM c) d),
        x AS (SELECT c.account, c.d2, c.n, t.total, e.p FROM c JOIN t USING (account) JOIN e USING (d2))
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
    reads: ["rp"],
    sql: (ctx, pass) => {
      const t = "group_by_trendshock";
      const f = "prior_period_frequency";
      const d = "prior_period_dollar_change";
      const fRatio = Math.max(Number(ctx.setting(f, "ratio")) - 1, 0.01);
      const dRatio = Math.max(Number(ctx.setting(d, "ratio")) - 1, 0.01);
      const z = `abs(m.net - (st.total - m.net) / (st.months - 1)) / nullif(sqrt(greatest((st.sumsq - m.net * m.net - (st.total - m.net) ^ 2 / (st.months - 1)) / greatest(st.months - 2, 1), 0)), 0)`;
      return `WITH m AS (SELECT account, rp, net::float8 AS net, n::integer AS n, act::float8 AS act FROM ${pass.table} WHERE ${pass.set("rp")}),
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
    reads: ["dow", "user"],
    sql: (ctx, pass) => rareForAccount(ctx, pass, "user", "user_id", "user_id IS NOT NULL"),
  },
  {
    points: ["journal_entry_isolation_forest"],
    table: "iso_dow",
    reads: ["dow"],
    sql: (ctx, pass) => rareForAccount(ctx, pass, "dow", "dow", "TRUE"),
  },
  {
    // Expense Flurry: expense debits per time window, against the other windows (leave one out).
    points: ["journal_entry_nfp_expense_flurry"],
    table: "flurry",
    reads: null,
    sql: (ctx) => flurrySql(ctx, "journal_entry_nfp_expense_flurry", false),
  },
  {
    points: ["journal_entry_nfp_fund_expense_flurry"],
    table: "fund_flurry",
    reads: null,
    sql: (ctx) => flurrySql(ctx, "journal_entry_nfp_fund_expense_flurry", true),
  },
  {
    points: ["journal_entry_nfp_split_expense_multiple"],
    table: "split",
    reads: null,
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

/** Outlier Anomaly's rare values: (account, key) pairs with at most `rareShare` of an account's entries (accounts with enough entries). */
function rareForAccount(ctx: GlContext, pass: Pass, key: "user" | "dow", column: string, present: string): string {
  const p = "journal_entry_isolation_forest";
  const share = Number(ctx.setting(p, "rareShare"));
  // An account's entries: the sum over its weekdays.
  return `WITH n AS (SELECT account, sum(n)::float8 AS n FROM ${pass.table} WHERE ${pass.set("dow")} GROUP BY account HAVING sum(n) >= ${num(Math.ceil(1 / Math.max(share, 1e-6)))}),
    c AS (SELECT account, ${column}, n::float8 AS k FROM ${pass.table} WHERE ${pass.set(key)} AND ${present})
    SELECT c.account, c.${column}, c.k::integer AS entries, n.n::integer AS account_entries FROM c JOIN n USING (account) WHERE c.k <= n.n * ${num(share)}`;
}

/**
 * The ISO weekday (Monday 1 ... Sunday 7) by day arithmetic from a Monday, as extract(isodow)
 * gives it (NULL for infinite dates too): extract returns a numeric, a third of the pass's CPU.
 */
const ISO_WEEKDAY = (date: string) => `CASE WHEN isfinite(${date}) THEN ((${date} - date '2000-01-03') % 7 + 7) % 7 + 1 END`;

/**
 * The shared pass over `sources` (or a part of them): per grouping set, the entries (`n`), the
 * debits of at least 10.00 (`debits`), the net and the absolute activity (`net`, `act`, numeric:
 * the halves add up exactly). The sets are hashed side by side in the one scan.
 */
function passSql(ctx: GlContext, sources: string, keys: readonly PassKey[]): string {
  const sets = KEY_ORDER.filter((k) => keys.includes(k)).map((k) => `(account, ${KEYS[k]})`);
  return `SELECT GROUPING(account, d2, rp, user_id, dow) AS g, account, d2, rp, user_id, dow,
         count(*) AS n, count(*) FILTER (WHERE amount >= 1000) AS debits, sum(amount) AS net, sum(abs(amount)) AS act
    FROM (SELECT s.account, s.amount, s.user_id, ${FIRST_TWO_DIGITS("s.amount")} AS d2, ${ctx.periods.reportingStart("s.effective_date")} AS rp,
                 ${ISO_WEEKDAY("s.effective_date")} AS dow
            FROM (${sources}) s) s
   GROUP BY GROUPING SETS (${sets.join(", ")})`;
}

/**
 * The shared pass as work table `work`, as tasks for two lanes: two halves of the sources' pages,
 * each aggregated on its own connection, and their sum (which waits for both halves).
 */
async function passTasks(step: StepContext, ctx: GlContext, work: string, keys: readonly PassKey[]): Promise<{ halves: Array<() => Promise<void>>; sum: () => Promise<void> }> {
  const sources = step.plan.spec.sources;
  const offsets = sources.map((_s, k) => Number(ctx.facts[`offset_${k}`] ?? 0));
  const halves = (await sourcePageHalves(step.pool, sources)).map((where, i) => ({
    table: step.plan.tables.work(`stats${i}`),
    sources: sourcesSql(sources, GL_COLUMNS, offsets, { where }),
  }));
  const done = halves.map(() => {
    const d = {} as { promise: Promise<void>; resolve(): void; reject(error: unknown): void };
    d.promise = new Promise<void>((resolve, reject) => Object.assign(d, { resolve, reject }));
    return d;
  });
  // A half that fails rejects the sum too; the sum may never start then (no unhandled rejection).
  for (const d of done) d.promise.catch(() => undefined);
  const halfTasks = halves.map((h, i) => async () => {
    try {
      await engineTransaction(step.pool, (client) => createTableAs(client, h.table, passSql(ctx, h.sources, keys), { analyze: false }));
      done[i].resolve();
    } catch (error) {
      done[i].reject(error);
      throw error;
    }
  });
  const sum = async () => {
    await Promise.all(done.map((d) => d.promise));
    await engineTransaction(step.pool, async (client) => {
      await createTableAs(
        client,
        work,
        `SELECT g, account, d2, rp, user_id, dow, sum(n) AS n, sum(debits) AS debits, sum(net) AS net, sum(act) AS act
           FROM (${halves.map((h) => `SELECT * FROM ${table(h.table)}`).join(" UNION ALL ")}) u GROUP BY g, account, d2, rp, user_id, dow`,
      );
      await client.query(`DROP TABLE ${halves.map((h) => table(h.table)).join(", ")}`);
    });
  };
  return { halves: halfTasks, sum };
}

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
  durable: true,
  async run(step: StepContext) {
    const ctx = await glContext(step.pool, step.plan);
    const running = STATISTICS.filter((s) => runs(ctx, s));
    const keys = running.flatMap((s) => s.reads ?? []);
    const work = step.plan.tables.work("stats");
    const pass: Pass = { table: table(work), set: (key) => `g = ${groupingOf(key)}` };
    const compute = (statistic: Statistic, serial = false) => async () => {
      step.signal.throwIfAborted();
      const name = step.plan.tables.stat(statistic.table);
      await engineTransaction(step.pool, async (client) => {
        if (serial) await client.query("SET LOCAL max_parallel_workers_per_gather = 0");
        if (running.includes(statistic)) await createTableAs(client, name, statistic.sql(ctx, pass));
        else await client.query(`DROP TABLE IF EXISTS ${table(name)}`);
      });
      step.pointsDone(statistic.points);
    };
    const own = STATISTICS.filter((s) => s.reads === null);
    if (keys.length > 0) {
      // Two lanes: the pass's halves, then the statistics reading the sources themselves on the lane
      // whose half ends first, and the halves' sum with the (small) statistics over it on the other,
      // each in one process. With parallel workers beside the halves, the amounts took 0.6-0.9 CPU-s
      // (against 0.3 in one process, 1M lines) from the halves' cores, and the sum and the small
      // statistics after them left a core idle.
      const { halves, sum } = await passTasks(step, ctx, work, keys);
      const overPass = async () => {
        await sum();
        for (const statistic of STATISTICS.filter((s) => s.reads !== null)) await compute(statistic)();
      };
      await sideBySide(2, [...halves, ...own.map((s) => compute(s, true)), overPass]);
    } else await sideBySide(2, own.map((s) => compute(s)));
    await step.pool.query(`DROP TABLE IF EXISTS ${table(work)}`);
  },
};

function runs(ctx: GlContext, statistic: Statistic): boolean {
  return statistic.points.length === 0 ? ctx.runs("journal_entry_isolation_forest") : statistic.points.some((p) => ctx.runs(p));
}

/** Whether the statistic table of a control point exists in this run (joined only then). */
export function statisticTable(ctx: GlContext, name: string): string | null {
  const owner = STATISTICS.find((s) => s.table === name);
  return owner && runs(ctx, owner) ? table(ctx.plan.tables.stat(name)) : null;
}
