import type pg from "pg";
import type { Logger } from "../core/logger.js";
import { inPgTransaction } from "../db/pg-transaction.js";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { DomainEvent, NewDomainEvent } from "./domain-event.js";
import type { AppPubSub } from "./pubsub.js";

export type Tx = Prisma.TransactionClient;
export type Emit = (event: NewDomainEvent) => void;
export type EventHandler = (event: DomainEvent) => Promise<void>;
/** A handler whose writes commit with the event's publication (on the relay's transaction). */
export type TransactionalEventHandler = (event: DomainEvent, client: pg.ClientBase) => Promise<void>;

/**
 * Runs `work` in one database transaction; events it emits are written to the outbox in that same
 * transaction, so they exist exactly when the change does. The relay is nudged after commit.
 */
export async function inTransaction<T>(
  app: { prisma: PrismaClient; relay: OutboxRelay },
  work: (tx: Tx, emit: Emit) => Promise<T>,
  options?: { timeout?: number; maxWait?: number; commitAfter?: Promise<unknown> },
): Promise<T> {
  const { commitAfter, ...transactionOptions } = options ?? {};
  const result = await app.prisma.$transaction(async (tx) => {
    const pending: NewDomainEvent[] = [];
    const value = await work(tx, (event) => pending.push(event));
    if (pending.length > 0) {
      await tx.outboxEvent.createMany({
        data: pending.map((e) => ({
          type: e.type,
          entityType: e.entityType,
          entityId: e.entityId ?? null,
          userId: e.userId ?? null,
          payload: e.payload ?? {},
        })),
      });
    }
    // Work elsewhere (never rejecting) the commit must follow: everything is written meanwhile.
    await commitAfter;
    return value;
  }, transactionOptions);
  app.relay.kick();
  return result;
}

interface OutboxRow {
  id: string;
  type: string;
  entity_type: string;
  entity_id: string | null;
  user_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

/**
 * Publishes committed outbox events. Several processes may run a relay: each batch is claimed with
 * FOR UPDATE SKIP LOCKED, so every event is handled by exactly one of them, and published on the
 * shared bus so subscribers on every process see it. A poll picks up what a crashed process left.
 */
export class OutboxRelay {
  private readonly handlers: EventHandler[] = [];
  private readonly transactionalHandlers: Array<{ handle: TransactionalEventHandler; accepts: (type: string) => boolean }> = [];
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly pubsub: AppPubSub,
    private readonly logger: Logger,
    private readonly pollMs = 1000,
  ) {}

  /** Handlers run once per event in the deployment (e.g. webhook delivery scheduling). */
  onEvent(handler: EventHandler): void {
    this.handlers.push(handler);
  }

  /**
   * Handlers whose writes must happen exactly once per event (e.g. webhook deliveries): they run on
   * the relay's own transaction, so their writes commit together with the event's publication, or
   * not at all (the event is then relayed again). A handler that throws is rolled back to a
   * savepoint and logged; the other handlers' writes and the publication still commit.
   */
  onEventInTransaction(handler: TransactionalEventHandler, accepts: (type: string) => boolean = () => true): void {
    this.transactionalHandlers.push({ handle: handler, accepts });
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((error) => this.logger.error("outbox relay failed", { error }))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.draining;
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      let count = 0;
      let handled = false;
      await inPgTransaction(this.pool, async (client) => {
        const { rows } = await client.query<OutboxRow>(
          `SELECT id::text AS id, type, entity_type, entity_id, user_id, payload, created_at
             FROM outbox_event WHERE published_at IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED`,
        );
        count = rows.length;
        for (const row of rows) {
          const event: DomainEvent = {
            id: row.id,
            type: row.type,
            entityType: row.entity_type,
            entityId: row.entity_id,
            userId: row.user_id,
            payload: row.payload,
            occurredAt: row.created_at.toISOString(),
          };
          this.pubsub.publish("domain-event", event);
          for (const handler of this.handlers) {
            await handler(event).catch((error) => this.logger.error("event handler failed", { error, eventId: event.id, type: event.type }));
          }
          for (const handler of this.transactionalHandlers) {
            if (!handler.accepts(event.type)) continue;
            handled = true;
            await client.query("SAVEPOINT relay_handler");
            try {
              await handler.handle(event, client);
              await client.query("RELEASE SAVEPOINT relay_handler");
            } catch (error) {
              // A lost connection fails here too and aborts the batch (relayed again); anything else is the handler's own fault.
              await client.query("ROLLBACK TO SAVEPOINT relay_handler");
              this.logger.error("event handler failed", { error, eventId: event.id, type: event.type });
            }
          }
        }
        if (rows.length > 0) await client.query("UPDATE outbox_event SET published_at = now() WHERE id = ANY($1::bigint[])", [rows.map((r) => r.id)]);
      });
      // Transactional handlers may have written events (jobs they started): relay them now, not at the next poll.
      if (handled) this.again = true;
      if (count < 200) return;
    }
  }
}
