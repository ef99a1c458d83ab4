import type { JobQueue } from "./queue.js";

/** Embedded mode (no Redis): one process, an in-memory queue with bounded concurrency. */
export class InProcessQueue implements JobQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private execute?: (id: string) => Promise<void>;
  private active = 0;
  private closed = false;

  constructor(private readonly concurrency: number) {}

  async enqueue(id: string, options: { key: string; delayMs?: number }): Promise<void> {
    if (this.closed) return;
    if (options.delayMs && options.delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.push(id);
      }, options.delayMs);
      timer.unref();
      this.timers.add(timer);
      return;
    }
    this.push(id);
  }

  start(execute: (id: string) => Promise<void>): void {
    this.execute = execute;
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    this.queued.clear();
  }

  private push(id: string): void {
    if (this.closed || this.queued.has(id)) return;
    this.queued.add(id);
    this.waiting.push(id);
    this.pump();
  }

  private pump(): void {
    if (!this.execute) return;
    while (!this.closed && this.active < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      this.queued.delete(id);
      this.active++;
      void this.execute(id).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }
}
