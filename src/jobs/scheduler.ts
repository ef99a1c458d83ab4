import type { App } from "../app-types.js";

export interface ScheduledTaskDefinition {
  /** Unique and stable: the deployment remembers when it last ran under this name. */
  name: string;
  /** Seconds between runs, from the configuration. */
  interval(app: App): number;
  run(app: App): Promise<void>;
}

/** Declares periodic maintenance; its family lists it. Each run happens once per deployment. */
export function defineScheduledTask(task: ScheduledTaskDefinition): ScheduledTaskDefinition {
  return task;
}

/**
 * Every process ticks; a task runs in the process that moves its `next_run_at` forward first
 * (a conditional UPDATE), so several processes never run the same occurrence, and a restart does
 * not reset the schedule.
 */
export class Scheduler {
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopped = false;

  private readonly tasks = new Map<string, ScheduledTaskDefinition>();

  constructor(private readonly app: App) {}

  /** The tasks this process ticks (the families' tasks, at start-up). */
  register(tasks: Iterable<ScheduledTaskDefinition>): void {
    for (const task of tasks) {
      const known = this.tasks.get(task.name);
      if (known && known !== task) throw new Error(`Scheduled task ${task.name} is defined twice`);
      this.tasks.set(task.name, task);
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.app.config.schedulerTickSeconds * 1000);
    this.timer.unref();
    void this.tick();
  }

  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= (async () => {
      try {
        for (const task of this.tasks.values()) {
          if (this.stopped) return;
          await this.runIfDue(task);
        }
      } finally {
        this.ticking = undefined;
      }
    })();
    return this.ticking;
  }

  private async runIfDue(task: ScheduledTaskDefinition): Promise<void> {
    const pool = this.app.pool;
    try {
      await pool.query("INSERT INTO scheduled_task (name, next_run_at) VALUES ($1, now()) ON CONFLICT (name) DO NOTHING", [task.name]);
      const claimed = await pool.query(
        `UPDATE scheduled_task SET next_run_at = now() + make_interval(secs => $2), last_run_at = now()
          WHERE name = $1 AND next_run_at <= now() RETURNING name`,
        [task.name, task.interval(this.app)],
      );
      if (claimed.rowCount === 0) return;
      await task.run(this.app);
      await pool.query("UPDATE scheduled_task SET last_error = NULL WHERE name = $1", [task.name]);
    } catch (error) {
      if (this.stopped) return;
      this.app.logger.error("scheduled task failed", { error, task: task.name });
      await pool.query("UPDATE scheduled_task SET last_error = $2 WHERE name = $1", [task.name, (error as Error).message]).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
  }
}
