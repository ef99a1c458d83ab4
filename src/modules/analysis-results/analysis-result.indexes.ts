import type pg from "pg";
import { inClientTransaction } from "../../db/pg-transaction.js";
import { indexStatements } from "../data-tables/data-table.indexes.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
import { quotedTable } from "../data-tables/data-table-rows.js";
import { quoteIdent } from "../../query-language/index.js";

interface Task {
  table: string;
  /** One of the statements the table's ANALYZE waits for (statistics objects, full expression indexes). */
  counts: boolean;
  /**
   * The table lock it takes: `read` (a summary pass, ACCESS SHARE) runs beside anything; `share`
   * (CREATE INDEX, SHARE) beside the reads and index builds of its table; `exclusive` (CREATE
   * STATISTICS, ANALYZE: SHARE UPDATE EXCLUSIVE) beside reads only, so a lane never starts one beside
   * another lane's index build of that table (it would wait for it, holding its core idle).
   */
  lock: "read" | "share" | "exclusive";
  run(client: pg.PoolClient): Promise<unknown>;
  /** Set when the failure is the caller's (a summary pass), not the indexer's: tells the caller it failed or will not run. */
  fail?(error: unknown): void;
}

interface Lane {
  client: pg.PoolClient | null;
  /** The table of the lane's last task. */
  table: string | null;
  /** The task running, if any. */
  task: Task | null;
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
 * Whether the table's ANALYZE must come after the statement: statistics objects, and full indexes
 * on expressions (lower(col)), whose statistics ANALYZE gathers only once they exist. Not the
 * indexes on plain columns (ANALYZE reads the heap alone for those) nor the partial ones (the
 * planner ignores a partial index's statistics), which can come after it.
 */
function analyzeNeeds(sql: string): boolean {
  if (sql.startsWith("CREATE STATISTICS")) return true;
  const on = sql.slice(sql.indexOf(" ON "));
  return !on.includes(" WHERE ") && /\blower(_text_array)?\(/.test(on);
}

/** How many statements run at once once the steps are done (both cores). */
const MAX_SLOTS = 2;

/**
 * Builds a run's result indexes as a queue of statements on connections of its own (lanes), so a
 * table is indexed as soon as the step writing it ends, beside the steps still running (most of
 * the scores step is one process: the second core is free) and beside the summary. Each statement
 * is one process (no parallel maintenance workers: two connections keep both cores busy without
 * the workers' merge overhead). A table is ANALYZEd once its statistics objects and full
 * expression indexes exist (statistics of lower(col) exist only then: without them the planner
 * misjudges `lower(txid) = $1`), before its plain and partial indexes: ANALYZE waits for any index
 * build of its table, so it runs beside the summary's reads, and the entries' ANALYZE no longer
 * ends the run alone on one core after their rare flags' partial index (1M lines: the tail's
 * longer lane 3.8-4.0 CPU-s instead of 4.2-4.3, see docs/architecture.md).
 *
 * A lane keeps its connection and takes the statements of one table while there are any (then
 * another table's, not one a busy lane holds): a backend's first touch of each page of shared
 * memory is a page fault, dear on this kind of virtual machine, and a table under a quarter of
 * shared_buffers (the transactions, the flows) is read into shared buffers, where every backend
 * reading it faults on all its pages (1M lines, the 156 MB transaction table: an index on row_no
 * cost 0.73-0.78 CPU-s in a fresh backend, 0.18 in one that had read the table). The summary's
 * passes (`query`) go on the lane of their table, after the expression indexes (see `next`).
 */
export class ResultIndexer {
  private readonly queue: Task[] = [];
  private readonly urgent: Task[] = [];
  private readonly issued = new Map<string, Set<string>>();
  private readonly pending = new Map<string, number>();
  private readonly analyzed = new Set<string>();
  /** Tables whose ANALYZE is still to run: their other index builds are left for last. */
  private readonly unanalyzed = new Set<string>();
  private readonly lanes: Lane[] = Array.from({ length: MAX_SLOTS }, () => ({ client: null, table: null, task: null }));
  private failure: unknown = null;
  private slots = 1;
  private idle: Array<() => void> = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly signal: AbortSignal,
  ) {}

  /** How many statements may run at once (1 beside a running step, 2 once the steps are done). */
  setSlots(slots: number): void {
    this.slots = Math.min(slots, MAX_SLOTS);
    this.pump();
  }

  /** Queues the table's index statements not queued before (IF NOT EXISTS: a resumed run repeats none that finished). */
  add(tableName: string, columns: DataTableColumn[]): void {
    const issued = this.issued.get(tableName) ?? new Set<string>();
    this.issued.set(tableName, issued);
    // Statistics objects first (instant alone, each would wait for an index build running beside
    // it), then the full expression indexes the ANALYZE waits for, then the others.
    const rank = (sql: string) => (sql.startsWith("CREATE INDEX") ? (analyzeNeeds(sql) ? 1 : 2) : 0);
    const fresh = resultIndexStatements(tableName, columns)
      .filter((sql) => !issued.has(sql))
      .sort((x, y) => rank(x) - rank(y));
    let needed = 0;
    for (const sql of fresh) {
      issued.add(sql);
      const counts = analyzeNeeds(sql);
      needed += Number(counts);
      this.queue.push({ table: tableName, counts, lock: sql.startsWith("CREATE INDEX") ? "share" : "exclusive", run: (client) => this.statement(client, sql) });
    }
    // Statistics a queued ANALYZE would miss (none in a run: the summary only adds partial indexes): one more.
    if (needed > 0) this.analyzed.delete(tableName);
    if (!this.analyzed.has(tableName)) this.unanalyzed.add(tableName);
    this.pending.set(tableName, (this.pending.get(tableName) ?? 0) + needed);
    if (!this.analyzed.has(tableName) && (this.pending.get(tableName) ?? 0) === 0) this.queueAnalyze(tableName);
    this.pump();
  }

  /**
   * Runs a read of `tableName` (a summary pass) in one process on a lane, before the statements
   * queued other than statistics, ANALYZE and the expression indexes an ANALYZE waits for:
   * preferably the lane that has read the table. Its failure is the caller's.
   */
  query<R extends pg.QueryResultRow>(tableName: string, sql: string): Promise<pg.QueryResult<R>> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.urgent.push({
        table: tableName,
        counts: false,
        lock: "read",
        fail: reject,
        run: async (client) =>
          resolve(
            await inClientTransaction(client, async () => {
              await client.query("SET LOCAL max_parallel_workers_per_gather = 0");
              return client.query<R>(sql);
            }),
          ),
      });
      this.pump();
    });
  }

  /** Resolves when every queued statement ran; rejects with the first failure. Releases the lanes' connections. */
  async done(): Promise<void> {
    while ((this.waiting() > 0 && !this.failure) || this.active() > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.releaseLanes();
    if (this.failure) throw this.failure;
  }

  /** Drops what is queued and waits for the statements running. */
  async cancel(): Promise<void> {
    this.queue.length = 0;
    for (const task of this.urgent.splice(0)) task.fail?.(new Error("The run's index builds were cancelled"));
    await this.done().catch(() => undefined);
  }

  private waiting(): number {
    return this.queue.length + this.urgent.length;
  }

  private active(): number {
    return this.lanes.filter((l) => l.task).length;
  }

  private queueAnalyze(tableName: string): void {
    this.analyzed.add(tableName);
    // The sample size the parse uses for its own ANALYZE (a tenth of the default's).
    this.queue.push({
      table: tableName,
      counts: false,
      lock: "exclusive",
      run: async (client) => {
        await this.statement(client, `ANALYZE ${quotedTable(tableName)}`);
        if (this.analyzed.has(tableName)) this.unanalyzed.delete(tableName);
      },
    });
  }

  /**
   * The next task for a lane, among those that take no lock another lane's task waits for (or
   * waits for theirs). An ANALYZE takes a moment when no index of its table is being built, and
   * reads (the summary's passes) or other tables' statements beside it are what keeps the other
   * core busy meanwhile, so: a statistics object or ANALYZE first; the expression indexes an
   * ANALYZE waits for (while any is queued, nothing else: the lane waits the milliseconds of a
   * statistics object that holds them up); the summary's passes; the other indexes, those of
   * tables already ANALYZEd (or not waiting for it) first. Within each, its own table's first,
   * else one of a table no other lane is on, else any.
   */
  private next(lane: Lane): Task | undefined {
    const others = this.lanes.filter((l) => l !== lane && l.task).map((l) => l.task!);
    const compatible = (a: Task, b: Task) => a.table !== b.table || a.lock === "read" || b.lock === "read" || (a.lock === "share" && b.lock === "share");
    const startable = (t: Task) => others.every((o) => compatible(o, t));
    const pick = (list: Task[], kind: (t: Task) => boolean) => {
      const at = [(t: Task) => t.table === lane.table, (t: Task) => !others.some((o) => o.table === t.table), () => true]
        .map((prefer) => list.findIndex((t) => kind(t) && prefer(t) && startable(t)))
        .find((i) => i >= 0);
      return at === undefined ? undefined : list.splice(at, 1)[0];
    };
    const exclusive = pick(this.queue, (t) => t.lock === "exclusive");
    if (exclusive) return exclusive;
    if (this.queue.some((t) => t.counts)) return pick(this.queue, (t) => t.counts);
    return pick(this.urgent, () => true) ?? pick(this.queue, (t) => !this.unanalyzed.has(t.table)) ?? pick(this.queue, () => true);
  }

  private pump(): void {
    for (const lane of this.lanes.slice(0, this.slots)) {
      if (lane.task || this.failure || this.waiting() === 0) continue;
      const task = this.next(lane);
      if (!task) continue;
      lane.task = task;
      lane.table = task.table;
      const run = this.execute(lane, task).then(
        () => undefined,
        (error) => {
          if (task.fail) return;
          this.failure ??= error;
          // No summary pass waits on a queue that stopped.
          for (const waiting of this.urgent.splice(0)) waiting.fail?.(this.failure);
        },
      );
      void run.finally(() => {
        lane.task = null;
        if (task.counts) {
          const left = this.pending.get(task.table)! - 1;
          this.pending.set(task.table, left);
          if (left === 0 && !this.analyzed.has(task.table)) this.queueAnalyze(task.table);
        }
        this.pump();
        if (this.active() === 0 && (this.waiting() === 0 || this.failure)) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
    if (this.active() === 0 && (this.waiting() === 0 || this.failure)) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async execute(lane: Lane, task: Task): Promise<void> {
    try {
      this.signal.throwIfAborted();
      lane.client ??= await this.pool.connect();
      await task.run(lane.client);
    } catch (error) {
      // A connection that failed is not reused (a statement's error leaves it usable, but telling the two apart is not worth it).
      lane.client?.release(error as Error);
      lane.client = null;
      task.fail?.(error);
      throw error;
    }
  }

  private releaseLanes(): void {
    for (const lane of this.lanes) {
      if (!lane.task && lane.client) {
        lane.client.release();
        lane.client = null;
      }
    }
  }

  private async statement(client: pg.PoolClient, sql: string): Promise<void> {
    await inClientTransaction(client, async () => {
      // Sorting a million keys in memory rather than in batches on disk.
      await client.query("SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL max_parallel_maintenance_workers = 0; SET LOCAL default_statistics_target = 30; SET LOCAL synchronous_commit = off");
      await client.query(sql);
    });
  }
}
