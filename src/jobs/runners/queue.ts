/**
 * What schedules job executions. It carries only async result ids: the row in PostgreSQL holds the
 * job's state, and `execute` claims it, so a duplicate or stale queue entry is harmless.
 */
export interface JobQueue {
  /** `key` identifies this scheduling (id + attempt) so a shared queue can drop duplicates. */
  enqueue(id: string, options: { key: string; delayMs?: number }): Promise<void>;
  start(execute: (id: string) => Promise<void>): void;
  close(): Promise<void>;
}
