/**
 * A fact the service announces: an entity changed, a workflow progressed, an export is ready.
 * `type` uses the webhook spelling where one exists (engagement.created, ingestion.complete) and
 * the same `<entity>.<verb>` pattern otherwise.
 */
export interface DomainEvent {
  /** Outbox sequence number (string: it is a bigint). */
  id: string;
  type: string;
  entityType: string;
  entityId: string | null;
  userId: string | null;
  payload: Record<string, unknown>;
  occurredAt: string;
}

export type NewDomainEvent = Omit<DomainEvent, "id" | "occurredAt" | "payload" | "userId" | "entityId"> & {
  entityId?: string | null;
  userId?: string | null;
  payload?: Record<string, unknown>;
};

/** Events that only feed live progress (not persisted in the outbox), e.g. percentages within a step. */
export interface TransientEvent {
  type: string;
  entityType: string;
  entityId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}
