import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../../core/logger.js";
import type { JobQueue } from "./queue.js";

/**
 * Redis mode: every process of the deployment shares one BullMQ queue and works it with its own
 * worker. BullMQ's retries are off: retry policy, leases and recovery live on the async result row.
 */
export class BullMqQueue implements JobQueue {
  private readonly queueConnection: Redis;
  private readonly workerConnection: Redis;
  private readonly queue: Queue;
  private worker?: Worker;

  constructor(
    redisUrl: string,
    private readonly name: string,
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {
    this.queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.queue = new Queue(name, { connection: this.queueConnection });
    this.queue.on("error", (error) => this.logger.warn("job queue error", { error }));
  }

  async enqueue(id: string, options: { key: string; delayMs?: number }): Promise<void> {
    await this.queue.add("run", { id }, { jobId: options.key, delay: options.delayMs ?? 0, attempts: 1, removeOnComplete: true, removeOnFail: true });
  }

  start(execute: (id: string) => Promise<void>): void {
    this.worker = new Worker(this.name, async (job) => execute((job.data as { id: string }).id), {
      connection: this.workerConnection,
      concurrency: this.concurrency,
    });
    this.worker.on("error", (error) => this.logger.warn("job worker error", { error }));
  }

  async close(): Promise<void> {
    await this.worker?.close(true).catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    this.queueConnection.disconnect();
    this.workerConnection.disconnect();
  }
}
