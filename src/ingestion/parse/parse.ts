import type pg from "pg";
import { combinationKey, needsWindow, normalizeSelection, windowedKeys, type NormalizedSelection, type TransactionIdSelection } from "../analysis/transaction-keys.js";
import { qualifiedTable } from "../sql/identifiers.js";
import { amountSides, FIELDS, fence, signedAmountExpression, sqlColumn, typedExpression, type ParsePlan, type ResolvedField, type Storage } from "../sql/parse-plan.js";
import { dateStyleSetting, withParseFallback } from "../sql/value-expressions.js";
import { inPgTransaction } from "../../db/pg-transaction.js";

/** A column of the entries table, described for data table definitions. */
export interface EntryColumn {
  name: string;
  /** Data table column type (wire section 7). */
  type: "STRING" | "DATE" | "MONEY_100" | "FLOAT64" | "INT64" | "INT32";
  platformField: string | null;
  /** Header of the file column it came from, when there is one. */
  originalName: string | null;
}

export interface ParseOptions {
  staging: string;
  /** Entries table to (re)create, e.g. `ingestionTables(sourceId).entries`. */
  target: string;
  plan: ParsePlan;
  /** The source's transactionIdSelection; without one, txid is the mapped txid column (or NULL). */
  transactionIdSelection?: TransactionIdSelection | null;
  /** Column names of the file, for `originalName`. */
  columnNames?: string[];
  /**
   * Statistics target of the ANALYZE run on the new table (default 30); null: none in the table's
   * transaction, the caller runs `analyzeTables` once it committed (off its critical path).
   */
  statisticsTarget?: number | null;
  /**
   * Called once with the result as soon as the statement (and the count of unparseable values) is
   * done, before the ANALYZE and the COMMIT: the caller may write what records the parse meanwhile
   * (and commit it only once this table is committed).
   */
  onWritten?: (result: ParseResult) => void;
}

export interface ParseResult {
  table: string;
  rowCount: number;
  columns: EntryColumn[];
  /** Values present in the file that could not be read as the field's type, per platform field. */
  unparseable: Record<string, number>;
}

/**
 * Storage parameters of tables written once and never updated (entries, transactions): analyzed
 * in the statement's transaction, so autovacuum has nothing to reclaim or learn, yet would scan the
 * whole table right after commit, beside whatever ingestion runs next. Wraparound vacuums still run.
 */
export const WRITE_ONCE = "WITH (autovacuum_enabled = false)";

/**
 * Settings of the transaction writing such a table. Created in its transaction with
 * wal_level=minimal, the table is not WAL-logged but synced at commit: the pages the statement
 * wrote out are handed to the kernel's writeback as it goes (every 2 MB) rather than all waited for
 * at COMMIT, where nothing else runs (1M-line entries table, 164 MB: COMMIT 268-297 ms -> 135-156
 * ms wall, same CPU, load 8-10).
 */
export const WRITE_ONCE_SETTINGS = "SET LOCAL backend_flush_after = '2MB'";

/**
 * ANALYZE of tables written with `statisticsTarget: null`, each on a connection of its own: the
 * data-table queries that follow need row and distinct counts, not fine histograms, so a 9,000-row
 * sample (target 30, a tenth of the default's) plans their filters as well.
 */
export async function analyzeTables(pool: pg.Pool, tables: string[], statisticsTarget = 30): Promise<void> {
  await Promise.all(
    tables.map((table) =>
      inPgTransaction(pool, async (client) => {
        await client.query(`SET LOCAL default_statistics_target = ${statisticsTarget}`);
        await client.query(`ANALYZE ${qualifiedTable(table)}`);
      }),
    ),
  );
}

const SQL_TYPE: Record<Storage, string> = { TEXT: "text", DATE: "date", MONEY_100: "bigint", FLOAT64: "double precision" };
const COLUMN_TYPE: Record<Storage, EntryColumn["type"]> = { TEXT: "STRING", DATE: "DATE", MONEY_100: "MONEY_100", FLOAT64: "FLOAT64" };
const AMOUNT_FIELDS = new Set<string>([FIELDS.debit, FIELDS.credit, FIELDS.amount]);

/**
 * The typed parse: one CREATE TABLE AS over the staging table, in one transaction that first drops
 * the previous result, so re-running it (after a crash, or with another transaction id selection)
 * gives the same table. Dates are read with the selected formats, amounts become MONEY_100 bigint,
 * debit/credit are folded from the signed amount (debit = max(amount, 0), credit = max(-amount, 0),
 * amount = debit - credit whichever of the two was mapped), txid comes from the selection.
 * `parse_errors` is a bit mask (bit i = plan.fields[i]) of values that could not be read.
 */
export async function parseEntries(pool: pg.Pool, options: ParseOptions): Promise<ParseResult> {
  const { plan } = options;
  const staging = qualifiedTable(options.staging);
  const target = qualifiedTable(options.target);
  const selection = options.transactionIdSelection ? normalizeSelection(options.transactionIdSelection) : null;
  const hasAmounts = signedAmountExpression(plan, false) !== null;
  // A file column's header, or the name of the virtual column at that position.
  const original = (position: number) => options.columnNames?.[position] ?? plan.virtualColumns.find((v) => v.position === position)?.name ?? null;
  const columns: EntryColumn[] = [
    { name: "row_no", type: "INT64", platformField: null, originalName: null },
    { name: FIELDS.txid, type: "STRING", platformField: FIELDS.txid, originalName: txidSource(plan, selection, original) },
  ];
  const outer: string[] = ["row_no", `${FIELDS.txid}::text AS ${FIELDS.txid}`];
  for (const f of plan.fields) {
    if (f.platformField === FIELDS.txid || (hasAmounts && AMOUNT_FIELDS.has(f.platformField))) continue;
    outer.push(`${sqlColumn(f.platformField)}::${SQL_TYPE[f.storage]}`);
    columns.push({ name: f.platformField, type: COLUMN_TYPE[f.storage], platformField: f.platformField, originalName: original(f.position) });
  }
  // Debit minus credit (a blank side counts 0) is never NULL: int8larger (a plain function call)
  // gives greatest()'s answer for less than GREATEST's comparator calls, and credit as credit -
  // debit saves the negation (1M-line ledger: 1.45 -> 1.40 CPU-s). A mapped amount can be NULL, where
  // greatest() gives 0. Both sides must be bigint (another type keeps the casts of the general
  // form); windowed transaction ids sum the signed amount `a` below, which then serves all three.
  const sideTypes = [FIELDS.debit, FIELDS.credit].map((name) => plan.fields.find((f) => f.platformField === name)?.storage ?? "MONEY_100");
  const sides = amountSides(plan, false) !== null && sideTypes.every((t) => t === "MONEY_100") && !(selection && needsWindow(selection));
  const side = (name: string) => (plan.fields.some((f) => f.platformField === name) ? `coalesce(a_${name}, 0)` : "0");
  if (sides) {
    const [d, c] = [side(FIELDS.debit), side(FIELDS.credit)];
    if (apartSides(plan)) outer.push(`${d === "0" ? "0::bigint" : d} AS debit`, `${c === "0" ? "0::bigint" : c} AS credit`, `${d} - ${c} AS amount`);
    else outer.push(`int8larger(${d} - ${c}, 0) AS debit`, `int8larger(${c} - ${d}, 0) AS credit`, `${d} - ${c} AS amount`);
  } else if (hasAmounts) {
    outer.push("greatest(a, 0)::bigint AS debit", "greatest(-a, 0)::bigint AS credit", "a::bigint AS amount");
  }
  if (hasAmounts) {
    for (const name of [FIELDS.debit, FIELDS.credit, FIELDS.amount]) {
      const mapped = plan.fields.find((f) => f.platformField === name);
      columns.push({ name, type: "MONEY_100", platformField: name, originalName: mapped ? original(mapped.position) : null });
    }
  }
  for (const a of plan.additional) {
    outer.push(`${sqlColumn(a.sqlName)}::text`);
    columns.push({ name: a.sqlName, type: "STRING", platformField: null, originalName: a.name });
  }
  columns.push({ name: "parse_errors", type: "INT32", platformField: null, originalName: null });

  // Fields whose values could not be read (parse_errors bit i = plan.fields[i]): text present, typed
  // value NULL. When the inner select outputs the field's typed value as a column (`typedColumn`)
  // and that is the guarded expression the bit needs, the bit is computed above
  // it from that column and the field's text: a guarded cast (pg_input_is_valid, then the cast) is
  // then evaluated once per row rather than twice wherever the inner select is not flattened (1M
  // rows, a guarded date: 2.68 -> 2.16 CPU-s); flattened, it is the same expression as before.
  const errorFields = (guarded: boolean) => plan.fields.map((f, i) => ({ f, i, bit: 1 << Math.min(i, 30) })).filter(({ f }) => f.storage !== "TEXT" && (guarded || f.expectErrors));
  const outputsTyped = (f: ResolvedField) => !(f.platformField === FIELDS.txid || (hasAmounts && AMOUNT_FIELDS.has(f.platformField)));
  // The inner column holding a field's typed value, if one does.
  const typedColumn = (f: ResolvedField): string | null => {
    if (outputsTyped(f)) return sqlColumn(f.platformField);
    if (sides && (f.platformField === FIELDS.debit || f.platformField === FIELDS.credit)) return `a_${f.platformField}`;
    if (hasAmounts && !sides && f.platformField === FIELDS.amount && f.storage === "MONEY_100") return "a";
    return null;
  };
  const lifted = (f: ResolvedField, guarded: boolean) => typedColumn(f) !== null && typedExpression(f, plan, guarded) === typedExpression(f, plan, true);
  const outerErrors = (guarded: boolean) => {
    const bits = errorFields(guarded)
      .filter(({ f }) => lifted(f, guarded))
      .map(({ f, i, bit }) => ` | CASE WHEN parse_text_${i} IS NOT NULL AND ${typedColumn(f)} IS NULL THEN ${bit} ELSE 0 END`);
    return `nullif(parse_errors${bits.join("")}, 0)::integer AS parse_errors`;
  };

  const inner = (guarded: boolean) => {
    const select: string[] = ["row_no"];
    for (const f of plan.fields) {
      if (!outputsTyped(f)) continue;
      select.push(`${typedExpression(f, plan, guarded)} AS ${sqlColumn(f.platformField)}`);
    }
    const amountParts = sides ? amountSides(plan, guarded) : null;
    if (amountParts) {
      if (amountParts.debit !== null) select.push(`${amountParts.debit} AS a_debit`);
      if (amountParts.credit !== null) select.push(`${amountParts.credit} AS a_credit`);
    } else {
      select.push(`${signedAmountExpression(plan, guarded) ?? "NULL::bigint"} AS a`);
    }
    for (const a of plan.additional) select.push(`${a.text} AS ${sqlColumn(a.sqlName)}`);
    const errorBits: string[] = [];
    for (const { f, i, bit } of errorFields(guarded)) {
      if (lifted(f, guarded)) select.push(`${f.text} AS parse_text_${i}`);
      else errorBits.push(`CASE WHEN ${f.text} IS NOT NULL AND ${typedExpression(f, plan, true)} IS NULL THEN ${bit} ELSE 0 END`);
    }
    select.push(`${errorBits.length > 0 ? errorBits.join(" | ") : "0"} AS parse_errors`);
    const txid = plan.fields.find((f) => f.platformField === FIELDS.txid);
    if (selection && !needsWindow(selection)) select.push(`${combinationKey(selection, plan)} AS ${FIELDS.txid}`);
    else if (selection) select.push(`${selection.type === "RUNNING_TOTAL" ? "NULL::text" : combinationKey(selection, plan)} AS key`);
    else select.push(`${txid ? txid.text : "NULL::text"} AS ${FIELDS.txid}`);
    const base = `SELECT ${select.join(", ")} FROM ${staging}`;
    if (selection && needsWindow(selection)) return `SELECT w.*, w.k AS ${FIELDS.txid} FROM (${windowedKeys(selection, base)}) w`;
    // Not flattened either when a bit reads a guarded cast's column (flattened, the cast would be
    // substituted into the bit and evaluated twice again).
    const guardedColumn = errorFields(guarded).some(({ f }) => lifted(f, guarded) && !f.shadow);
    return `${base}${fence(plan, guarded) || (guardedColumn ? " OFFSET 0" : "")}`;
  };

  const checked = plan.fields.map((f, i) => [f, i] as const).filter(([f]) => f.storage !== "TEXT");
  let announced = false;
  return withParseFallback(async (guarded) => {
    return inPgTransaction(pool, async (client) => {
      const created = await client.query(`CREATE TABLE ${target} ${WRITE_ONCE} AS SELECT ${[...outer, outerErrors(guarded)].join(", ")} FROM (${inner(guarded)}) s`);
      // Counted in the statement's transaction: the result is complete before the ANALYZE and the
      // COMMIT (`onWritten`).
      const unparseable: Record<string, number> = {};
      for (const [f] of checked) unparseable[f.platformField] = 0;
      // Without guarded expressions every value was read (an unreadable one would have failed the statement).
      if (checked.length > 0 && (guarded || checked.some(([f]) => f.expectErrors))) {
        const { rows } = await client.query(
          `SELECT ${checked.map(([, i]) => `count(*) FILTER (WHERE parse_errors & ${1 << Math.min(i, 30)} <> 0) AS f${i}`).join(", ")} FROM ${target} WHERE parse_errors IS NOT NULL`,
        );
        for (const [f, i] of checked) unparseable[f.platformField] = Number(rows[0]?.[`f${i}`] ?? 0);
      }
      const result: ParseResult = { table: options.target, rowCount: created.rowCount ?? 0, columns, unparseable };
      if (!announced && options.onWritten) {
        announced = true;
        options.onWritten(result);
      }
      // Statistics for the data-table queries that follow at once (autovacuum would come later). A
      // 9,000-row sample (target 30) costs a tenth of the default 30,000 and plans these filters as
      // well. Before the COMMIT: the rows are the transaction's own (no commit-status look-ups, no
      // hint bits set on the sampled pages), and the writeback of the new relation's pages
      // (WRITE_ONCE_SETTINGS) drains meanwhile, so the COMMIT's sync is shorter.
      if (options.statisticsTarget !== null) {
        await client.query(`SET LOCAL default_statistics_target = ${options.statisticsTarget ?? 30}`);
        await client.query(`ANALYZE ${target}`);
      }
      return result;
    }, `${dateStyleSetting(plan.dateOrder)}; ${WRITE_ONCE_SETTINGS}; DROP TABLE IF EXISTS ${target}`);
  });
}

/**
 * Whether debit and credit are read from staged shadows that the staging pass saw never below zero
 * and never both set in one row (a ledger's two columns, MoneyShadowFacts): debit - credit is then
 * the debit or minus the credit, so greatest(d - c, 0) is d and greatest(c - d, 0) is c, blanks 0.
 * The two folds then cost no function call (1M-line ledger: 5 calls per row, ~0.06 CPU-s).
 */
export function apartSides(plan: ParsePlan): boolean {
  const debit = plan.fields.find((f) => f.platformField === FIELDS.debit);
  const credit = plan.fields.find((f) => f.platformField === FIELDS.credit);
  const mapped = [debit, credit].filter((f) => f !== undefined);
  if (mapped.length === 0 || !mapped.every((f) => f.shadow && f.money && !f.money.negatives)) return false;
  if (!debit || !credit) return true;
  return debit.position !== credit.position && !debit.money!.sharesRowsWith.includes(credit.position) && !credit.money!.sharesRowsWith.includes(debit.position);
}

/**
 * The column txid comes from, when it is one column: the selection's only column (running totals
 * and combinations of several columns have none), or without a selection the column mapped to txid.
 */
function txidSource(plan: ParsePlan, selection: NormalizedSelection | null, original: (position: number) => string | null): string | null {
  if (!selection) {
    const mapped = plan.fields.find((f) => f.platformField === FIELDS.txid);
    return mapped ? original(mapped.position) : null;
  }
  if (selection.type !== "COMBINATION") return null;
  const positions = [...selection.columnSelection, ...selection.virtualColumnSelection.map((i) => plan.virtualColumns[i]?.position)];
  return positions.length === 1 && positions[0] !== undefined ? original(positions[0]) : null;
}

export interface DiscoveredAccount {
  account: string;
  /** The most frequent description of the account in the file, if any. */
  accountDescription: string | null;
  fundId?: string | null;
  /** A chart of accounts' type and MAC (or group) code columns, the most frequent value of each. */
  accountType?: string | null;
  code?: string | null;
  entries: number;
  /** MONEY_100 totals: of debit and credit entries, or of debit and credit balances in a balance listing. */
  debits: number;
  credits: number;
}

/** Balance listings (opening, closing balances): the balance's sign is the account's side. */
const BALANCE_COLUMNS = ["closing_balance", "opening_balance"];

/**
 * Distinct accounts (per fund when the entries have funds) with descriptions, types and codes and
 * their debit/credit totals, for account mappings: one aggregation over the entries table.
 */
export async function discoverAccounts(pool: pg.Pool, entries: string): Promise<DiscoveredAccount[]> {
  const table = qualifiedTable(entries);
  const { rows: cols } = await pool.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema || '.' || table_name = $1 OR table_name = $1",
    [entries],
  );
  const names = new Set(cols.map((c) => c.column_name));
  if (!names.has(FIELDS.account)) return [];
  const fund = names.has(FIELDS.fund);
  const hasDescription = names.has(FIELDS.accountDescription);
  const balance = BALANCE_COLUMNS.find((c) => names.has(c));
  const [debit, credit] = names.has("debit") ? ["debit", "credit"] : balance ? [`greatest(${balance}, 0)`, `greatest(-${balance}, 0)`] : [null, null];
  const mostFrequent = (column: string) => (names.has(column) ? `mode() WITHIN GROUP (ORDER BY ${column}) FILTER (WHERE ${column} IS NOT NULL)` : "NULL::text");
  const keys = [...(fund ? [FIELDS.fund] : []), FIELDS.account];
  // One hash aggregation per (account, description), then the most frequent description per
  // account from that small result (mode() WITHIN GROUP over all entries would sort every entry).
  // Type and code columns exist only in charts of accounts (a row per account): mode() is cheap there.
  const { rows } = await pool.query(
    `SELECT ${keys.join(", ")}, ${fund ? "" : "NULL AS fund_id, "}
            (array_agg(description ORDER BY n DESC, description) FILTER (WHERE description IS NOT NULL))[1] AS description,
            (array_agg(account_type ORDER BY n DESC) FILTER (WHERE account_type IS NOT NULL))[1] AS account_type,
            (array_agg(code ORDER BY n DESC) FILTER (WHERE code IS NOT NULL))[1] AS code,
            sum(n) AS entries, sum(debits) AS debits, sum(credits) AS credits
       FROM (SELECT ${keys.join(", ")}, ${hasDescription ? FIELDS.accountDescription : "NULL::text"} AS description, count(*) AS n,
                    ${mostFrequent("account_type")} AS account_type, ${mostFrequent("mac_code")} AS code,
                    ${debit ? `coalesce(sum(${debit}), 0)` : "0"} AS debits, ${credit ? `coalesce(sum(${credit}), 0)` : "0"} AS credits
               FROM ${table} WHERE ${FIELDS.account} IS NOT NULL
              GROUP BY ${keys.join(", ")}, description) g
      GROUP BY ${keys.join(", ")} ORDER BY ${keys.join(", ")}`,
  );
  return rows.map((r) => ({
    account: r.account,
    accountDescription: r.description ?? null,
    ...(fund ? { fundId: r.fund_id ?? null } : {}),
    ...(r.account_type != null ? { accountType: r.account_type } : {}),
    ...(r.code != null ? { code: r.code } : {}),
    entries: Number(r.entries),
    debits: Number(r.debits),
    credits: Number(r.credits),
  }));
}
