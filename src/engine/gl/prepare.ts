import type pg from "pg";
import { createAccountsTable } from "../accounts.js";
import { rowOffsets } from "../source.js";
import { engineTransaction, writeFacts, type EngineStep, type RunFacts } from "../steps.js";
import { glContext } from "./context.js";

/**
 * Accounts with their classification and risk group; row offsets of the sources; the ledger-wide
 * facts later steps embed: the high monetary value threshold, materiality, the entry delay's
 * mean and spread (facts the result keeps, so explain shows the values the run used).
 */
export const glPrepareStep: EngineStep = {
  name: "prepare",
  points: ["journal_entry_high_dollar_value", "journal_entry_material_value"],
  cost: 2,
  durable: true,
  async run({ pool, plan, pointsDone }) {
    await engineTransaction(pool, async (client) => {
      const offsets = await rowOffsets(client, plan.spec.sources);
      const facts: RunFacts = Object.fromEntries(offsets.map((o, k) => [`offset_${k}`, o]));
      await writeFacts(client, plan, facts);
      await createAccountsTable(client, plan, null);
      const ctx = await glContext(client, plan);
      const { rows } = await client.query<{ entries: string; nonzero: string; total_debit: string; revenue: string; lag_mean: number | null; lag_sd: number | null; first_date: string | null; last_date: string | null }>(
        `WITH s AS (${ctx.sources})
         SELECT count(*) AS entries, count(*) FILTER (WHERE s.amount <> 0) AS nonzero, coalesce(sum(s.debit), 0) AS total_debit,
                coalesce(sum(-s.amount) FILTER (WHERE a.class = '4'), 0) AS revenue,
                avg(s.entered_date - s.effective_date)::float8 AS lag_mean, stddev_pop(s.entered_date - s.effective_date)::float8 AS lag_sd,
                to_char(min(s.effective_date), 'YYYY-MM-DD') AS first_date, to_char(max(s.effective_date), 'YYYY-MM-DD') AS last_date
           FROM s ${ctx.accountJoin("s")}`,
      );
      const ledger = rows[0];
      const configuredThreshold = ctx.setting<number | null>("journal_entry_high_dollar_value", "threshold");
      let threshold = configuredThreshold;
      if (threshold == null) {
        const percentile = Number(ctx.setting("journal_entry_high_dollar_value", "percentile") ?? 0.995);
        threshold = Math.max(1, Number((await percentileDisc(client, ctx.sources, percentile, Number(ledger.nonzero))) ?? 1));
      }
      const configuredMateriality = ctx.setting<number | null>("journal_entry_material_value", "materiality");
      const revenue = Number(ledger.revenue);
      const materiality = configuredMateriality ?? Math.max(1, revenue > 0 ? Math.round(revenue * 0.01) : Math.round(Number(ledger.total_debit) * 0.005));
      await writeFacts(client, plan, {
        entries: Number(ledger.entries),
        highValueThreshold: threshold,
        highValueThresholdSource: configuredThreshold == null ? "percentile" : "setting",
        materiality,
        materialitySource: configuredMateriality != null ? "setting" : revenue > 0 ? "1% of net revenue" : "0.5% of total debits",
        lagMean: ledger.lag_mean,
        lagSd: ledger.lag_sd,
        firstDate: ledger.first_date,
        lastDate: ledger.last_date,
      });
    });
    pointsDone(this.points);
  },
};

/**
 * percentile_disc(fraction) WITHIN GROUP (ORDER BY abs(amount)) over the `n` entries with a
 * non-zero amount, as PostgreSQL computes it (the row at ceil(fraction x n), in float8, counting
 * from 1; the first row below 1): that row fetched with OFFSET from whichever end is nearer, a
 * bounded top-N sort of a few thousand rows instead of a sort of every amount (0.8 against 0.2
 * CPU-s at 1M lines).
 */
async function percentileDisc(client: pg.PoolClient, sources: string, fraction: number, n: number): Promise<string | null> {
  if (n === 0) return null;
  const row = Math.min(n, Math.max(1, Math.ceil(fraction * n)));
  const [order, offset] = row - 1 <= n - row ? ["ASC", row - 1] : ["DESC", n - row];
  const { rows } = await client.query<{ v: string }>(`WITH s AS (${sources}) SELECT abs(s.amount) AS v FROM s WHERE s.amount <> 0 ORDER BY 1 ${order} OFFSET $1 LIMIT 1`, [offset]);
  return rows[0]?.v ?? null;
}
