import type pg from "pg";
import { inPgTransaction } from "../../db/pg-transaction.js";
import { indexStatements } from "../data-tables/data-table.indexes.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
import { quotedTable } from "../data-tables/data-table-rows.js";
import { quoteIdent } from "../../query-language/index.js";

interface Task {
  sql: string;
  table: string;
}

/** Rare flags sharing one index (a key column each after row_no; INDEX_MAX_KEYS is 32). */
const FLAGS_PER_INDEX = 8;

const literal = (v: string) => `'${v.replaceAll("'", "''")}'`;

/**
 * A result table's index statements: the data table's (indexStatements), except that its rare
 * flags (`partialIndex`, at most 1% of rows each, markRareFlags) share one partial index per group
 * of up to FLAGS_PER_INDEX: on (row_no, flag, flag, ...) WHERE flag OR flag OR ... Each CREATE
 * INDEX reads the whole table (1M lines: 460 MB, 0.3-0.6 CPU-s a pass with nothing to sort), so
 * three rare flags cost three passes where one serves them all. A page of one flag walks the
 * shared index in row_no order with the flag as an index condition (`WHERE flag` is matched as
 * `flag = true` on a boolean key column), reading in the index the other flags' entries too (at
 * most FLAGS_PER_INDEX% of the rows, no heap access for them) and the heap only for its own rows.
 * A lone rare flag keeps the data table's own partial index on (row_no).
 *
 * An enumeration's rare values (risk_level: the values on at most 5% of rows each, markCommonValues)
 * join the first group as one more key, lower(col), and one more arm of its predicate,
 * lower(col) NOT IN (the common values), instead of a partial index of their own on
 * (lower(col), row_no): one pass of the table less (1M lines: 0.5-0.7 CPU-s, 0.1 for the 250,000
 * transactions). A page of `lower(col) = 'medium'` implies that arm, so it walks the shared index
 * in row_no order with the value as an index condition (1M lines, 996 MEDIUM entries: 37 buffers
 * for page 0, 82 for page 2; an absent value reads the whole small index, 28 buffers).
 */
export function resultIndexStatements(tableName: string, columns: DataTableColumn[]): string[] {
  const rare = columns.flatMap((c, position) => (c.partialIndex && c.type === "BOOLEAN" && !c.flagColumns ? [{ c, position }] : []));
  const levels = rare.length === 0 ? [] : columns.filter((c) => c.type === "STRING" && c.commonValues && c.commonValues.length > 0 && !c.flagColumns);
  if (rare.length + levels.length < 2) return indexStatements(tableName, columns);
  const shared = new Set<DataTableColumn>([...rare.map(({ c }) => c), ...levels]);
  // The shared columns' own statements dropped (the levels keep their expression statistics).
  const own = indexStatements(tableName, columns.map((c) => (!shared.has(c) ? c : c.type === "BOOLEAN" ? { ...c, partialIndex: false } : { ...c, commonValues: undefined })));
  const base = tableName.split(".").pop()!;
  const statements: string[] = [];
  for (let i = 0; i < rare.length; i += FLAGS_PER_INDEX) {
    const group = rare.slice(i, i + FLAGS_PER_INDEX);
    const keys = group.map(({ c }) => quoteIdent(c.sql));
    const arms = [...keys];
    if (i === 0) {
      for (const level of levels) {
        keys.push(`lower(${quoteIdent(level.sql)})`);
        arms.push(`lower(${quoteIdent(level.sql)}) NOT IN (${level.commonValues!.map(literal).join(", ")})`);
      }
    }
    statements.push(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_p${group[0].position}_${keys.length}`)} ON ${quotedTable(tableName)} ("row_no", ${keys.join(", ")}) WHERE ${arms.join(" OR ")}`);
  }
  return [...own, ...statements];
}

/**
 * Builds a run's result indexes as a queue of statements over a few connections of their own, so
 * a table is indexed as soon as the step writing it ends, beside the steps still running (most of
 * the scores step is one process: the second core is free) and beside the summary. Each statement
 * is one process (no parallel maintenance workers: two connections keep both cores busy without
 * the workers' merge overhead). A table is ANALYZEd once its expression indexes exist (statistics
 * of lower(col) exist only then: without them the planner misjudges `lower(txid) = $1`); the rare
 * flags' partial indexes, known only from the summary, come after and need no ANALYZE.
 */
export class ResultIndexer {
  private readonly queue: Task[] = [];
  private readonly issued = new Map<string, Set<string>>();
  private readonly pending = new Map<string, number>();
  private readonly analyzed = new Set<string>();
  private failure: unknown = null;
  private slots = 1;
  private active = 0;
  private idle: Array<() => void> = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly signal: AbortSignal,
  ) {}

  /** How many statements may run at once (1 beside a running step, 2 once the steps are done). */
  setSlots(slots: number): void {
    this.slots = slots;
    this.pump();
  }

  /** Queues the table's index statements not queued before (IF NOT EXISTS: a resumed run repeats none that finished). */
  add(tableName: string, columns: DataTableColumn[]): void {
    const issued = this.issued.get(tableName) ?? new Set<string>();
    this.issued.set(tableName, issued);
    const fresh = resultIndexStatements(tableName, columns).filter((sql) => !issued.has(sql));
    for (const sql of fresh) {
      issued.add(sql);
      this.queue.push({ sql, table: tableName });
    }
    this.pending.set(tableName, (this.pending.get(tableName) ?? 0) + fresh.length);
    if (!this.analyzed.has(tableName) && fresh.length === 0 && (this.pending.get(tableName) ?? 0) === 0) this.queueAnalyze(tableName);
    this.pump();
  }

  /** Resolves when every queued statement ran; rejects with the first failure. */
  async done(): Promise<void> {
    while ((this.queue.length > 0 && !this.failure) || this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** Drops what is queued and waits for the statements running. */
  async cancel(): Promise<void> {
    this.queue.length = 0;
    await this.done().catch(() => undefined);
  }

  private queueAnalyze(tableName: string): void {
    this.analyzed.add(tableName);
    // The sample size the parse uses for its own ANALYZE (a tenth of the default's).
    this.queue.push({ sql: `ANALYZE ${quotedTable(tableName)}`, table: "" });
  }

  private pump(): void {
    while (this.active < this.slots && this.queue.length > 0 && !this.failure) {
      const task = this.queue.shift()!;
      this.active++;
      const run = this.execute(task).then(
        () => undefined,
        (error) => {
          this.failure ??= error;
        },
      );
      void run.finally(() => {
        this.active--;
        if (task.table) {
          const left = this.pending.get(task.table)! - 1;
          this.pending.set(task.table, left);
          if (left === 0 && !this.analyzed.has(task.table)) this.queueAnalyze(task.table);
        }
        this.pump();
        if (this.active === 0 && (this.queue.length === 0 || this.failure)) {
          for (const resolve of this.idle.splice(0)) resolve();
        }
      });
    }
    if (this.active === 0 && (this.queue.length === 0 || this.failure)) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async execute(task: Task): Promise<void> {
    this.signal.throwIfAborted();
    await inPgTransaction(this.pool, async (client) => {
      // Sorting a million keys in memory rather than in batches on disk.
      await client.query("SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL max_parallel_maintenance_workers = 0; SET LOCAL default_statistics_target = 30; SET LOCAL synchronous_commit = off");
      await client.query(task.sql);
    });
  }
}
