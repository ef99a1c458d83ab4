import type pg from "pg";
import type { RunPlan } from "./run-plan.js";
import type { EngineAccount, EngineRiskGroup } from "./spec.js";
import { table } from "./sql.js";
import { WRITE_ONCE } from "./steps.js";

/**
 * The account tags of the platform's transaction export (`account_tags_increasing_<tag>`,
 * `account_tags_decreasing_<tag>`), in its column order; bit i of `tag_mask` is tag i.
 */
export const EXPORT_TAGS = ["expense", "asset", "ar", "liabilities", "income", "cash", "inventory", "ebitda", "contra", "ap"] as const;

/** MAC codes whose balances run against their class (besides accounts tagged accumulated_*). */
const CONTRA_MAC_CODES = new Set(["1.1.2.2", "1.1.3.4", "4.1.1.2", "4.1.1.3", "3.1.1.4"]);
/** Tags of profit and loss accounts left out of EBITDA. */
const NOT_EBITDA = new Set(["depreciation", "amortization", "finance_costs", "finance_income", "tax", "impairment"]);

export interface ClassifiedAccount {
  account: string;
  description: string | null;
  fund_key: string;
  group_code: string | null;
  codes: string[];
  mac_code: string | null;
  mac_codes: string[];
  class: string | null;
  tags: string[];
  /** +1: debits increase the account; -1: credits do; 0: unclassified. */
  normal: number;
  tag_mask: number;
  /** Names of the export tags set in tag_mask. */
  export_tags: string[];
  /** Index of the risk group scoring the account's entries; -1: no enabled group (unscored). */
  risk_group: number;
  is_cash: boolean;
  is_bad_debt: boolean;
  is_expense: boolean;
  is_bs: boolean;
  is_is: boolean;
  is_related: boolean;
}

/**
 * The risk group of an account (docs/control-points.md, "Scores"): the first enabled assertion
 * group whose filter is empty or names one of the account's codes (engagement group hierarchy, MAC
 * hierarchy, account id); otherwise the first enabled GENERAL group (the platform score), which is
 * also where unmapped accounts go.
 */
export function riskGroupOf(groups: readonly EngineRiskGroup[], codes: ReadonlySet<string>): number {
  const matched = groups.findIndex((g) => !g.general && !g.disabled && (g.filter.length === 0 || g.filter.some((f) => codes.has(f))));
  if (matched >= 0) return matched;
  return groups.findIndex((g) => g.general && !g.disabled);
}

export function classifyAccount(account: EngineAccount, groups: readonly EngineRiskGroup[], badDebtCodes: readonly string[]): ClassifiedAccount {
  const tags = [...new Set(account.tags.map((t) => t.toLowerCase()))];
  const has = (tag: string) => tags.includes(tag);
  const cls = account.macHierarchy[0] ?? account.macCode?.split(".")[0] ?? null;
  const contra = has("accumulated_depreciation") || has("accumulated_amortization") || (account.macCode !== null && CONTRA_MAC_CODES.has(account.macCode));
  let normal = cls === "1" || cls === "5" ? 1 : cls === "2" || cls === "3" || cls === "4" ? -1 : 0;
  if (contra) normal = -normal;
  const exportTags: Record<(typeof EXPORT_TAGS)[number], boolean> = {
    expense: cls === "5",
    asset: cls === "1",
    ar: has("accounts_receivable"),
    liabilities: cls === "2",
    income: cls === "4",
    cash: has("cash"),
    inventory: has("inventory"),
    ebitda: (cls === "4" || cls === "5") && !tags.some((t) => NOT_EBITDA.has(t)),
    contra,
    ap: has("accounts_payable"),
  };
  const tagMask = EXPORT_TAGS.reduce((mask, tag, i) => (exportTags[tag] ? mask | (1 << i) : mask), 0);
  const codes = new Set([...account.groupHierarchy, ...account.macHierarchy, account.account]);
  return {
    account: account.account,
    description: account.description,
    fund_key: account.fundId ?? "",
    group_code: account.groupCode,
    codes: account.groupHierarchy,
    mac_code: account.macCode,
    mac_codes: account.macHierarchy,
    class: cls,
    tags,
    normal,
    tag_mask: tagMask,
    export_tags: EXPORT_TAGS.filter((tag) => exportTags[tag]),
    risk_group: riskGroupOf(groups, codes),
    is_cash: has("cash"),
    is_bad_debt: badDebtCodes.some((c) => account.macHierarchy.includes(c)),
    is_expense: cls === "5",
    is_bs: cls === "1" || cls === "2" || cls === "3",
    is_is: cls === "4" || cls === "5",
    is_related: has("related_party"),
  };
}

/**
 * The accounts table of a run (kept with the result: explain reads it): one row per account (and
 * fund, for fund ledgers) with its classification, written from the mappings the module loaded.
 * Accounts of the entries that have no mapping get a row too (unclassified, GENERAL group).
 */
export async function createAccountsTable(client: pg.PoolClient, plan: RunPlan, entryAccountsSql: string | null): Promise<void> {
  const { spec } = plan;
  const badDebt = (plan.setting<string[]>("journal_entry_cash_to_bad_debt", "badDebtCodes") ?? []) as string[];
  const rows = spec.accounts.map((a) => classifyAccount(a, spec.riskGroups, badDebt));
  const name = table(plan.tables.accounts);
  await client.query(`DROP TABLE IF EXISTS ${name}`);
  await client.query(
    `CREATE TABLE ${name} ${WRITE_ONCE} AS
       SELECT DISTINCT ON (account, fund_key) * FROM jsonb_to_recordset($1::jsonb) AS r(
         account text, description text, fund_key text, group_code text, codes text[], mac_code text, mac_codes text[], class text, tags text[],
         normal integer, tag_mask integer, export_tags text[], risk_group integer, is_cash boolean, is_bad_debt boolean, is_expense boolean,
         is_bs boolean, is_is boolean, is_related boolean)
       ORDER BY account, fund_key`,
    [JSON.stringify(rows)],
  );
  if (entryAccountsSql) {
    // Accounts of the entries without a mapping row: unclassified, scored in the fallback group.
    const fallback = riskGroupOf(spec.riskGroups, new Set());
    await client.query(
      `INSERT INTO ${name} (account, fund_key, codes, mac_codes, tags, normal, tag_mask, export_tags, risk_group, is_cash, is_bad_debt, is_expense, is_bs, is_is, is_related)
       SELECT e.account, e.fund_key, '{}', '{}', '{}', 0, 0, '{}', ${fallback}, false, false, false, false, false, false
         FROM (${entryAccountsSql}) e
        WHERE e.account IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${name} a WHERE a.account = e.account AND a.fund_key = e.fund_key)`,
    );
  }
  await client.query(`ALTER TABLE ${name} ADD PRIMARY KEY (account, fund_key)`);
  await client.query(`ANALYZE ${name}`);
}
