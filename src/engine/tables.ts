/** Schema of the tables analysis results own (migration `..._analysis_results`). */
export const RESULTS_SCHEMA = "results";

/**
 * The tables of one analysis result, named from its id: the published ones (`lines`, `tx`, `flows`,
 * typeahead tables) and the working tables of the run (dropped when it ends). Every table of a
 * result starts with `r_<id>_`, so the orphan cleanup and a failed run can find them all.
 */
export function resultTables(resultId: string) {
  const id = resultId.toLowerCase();
  if (!/^[a-f0-9]{24}$/.test(id)) throw new Error(`Invalid analysis result id ${JSON.stringify(resultId)}`);
  const t = (suffix: string) => `${RESULTS_SCHEMA}.r_${id}_${suffix}`;
  return {
    prefix: `r_${id}_`,
    /** Accounts of the analysis with their classification (kept: explain reads it). */
    accounts: t("acct"),
    /** Entries with their own (entry-level) control point scores. */
    base: t("base"),
    lines: t("lines"),
    tx: t("tx"),
    flows: t("flows"),
    /** AP/AR: the documents outstanding at the period end. */
    open: t("open"),
    /** Per-control-point statistics (kept: explain reads them). */
    stat: (name: string) => t(`s_${name}`),
    /** Transaction-level and flow-level findings before they join the transactions. */
    work: (name: string) => t(`w_${name}`),
    typeahead: (name: string) => t(`ta_${name}`),
  };
}

/**
 * Tables a result keeps (published, and what explain reads: accounts, statistics, facts, pairs,
 * signatures): written logged, so they survive a crash of PostgreSQL. Every other table of a run
 * is work for a later step, written UNLOGGED (no WAL, no fsync at commit); a crash empties those,
 * which the run detects (`survivingSteps` in steps.ts) and recomputes.
 */
const DURABLE = /^r_[a-f0-9]{24}_(acct|lines|tx|flows|open|w_facts|w_pairs|w_signatures|s_.+|ta_.+)$/;

export function isDurableTable(name: string): boolean {
  return DURABLE.test(name.slice(name.indexOf(".") + 1));
}

export type ResultTables = ReturnType<typeof resultTables>;
