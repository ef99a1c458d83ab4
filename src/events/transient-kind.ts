import type { TransientEvent } from "./domain-event.js";
import type { AppPubSub } from "./pubsub.js";

/**
 * One kind of transient event (analysis source progress, analysis run progress) and the shape of
 * its payload: the publisher and the subscribers take the shape from here, so changing it is a
 * compile error on both sides rather than a surprise in a subscription.
 */
export function transientEventKind<P extends { [K in keyof P]: unknown }>(type: string, entityType: string) {
  return {
    type,
    publish(pubsub: AppPubSub, entityId: string, payload: P): void {
      pubsub.publish("transient-event", { type, entityType, entityId, payload: { ...payload }, occurredAt: new Date().toISOString() });
    },
    /** The payload when the event is of this kind and about `entityId`, else null. */
    payloadOf(event: TransientEvent, entityId: string): P | null {
      // Only `publish` above writes events of this type, with a P.
      return event.type === type && event.entityId === entityId ? (event.payload as P) : null;
    },
  };
}
