import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

/** A graphql-ws client that collects events of one subscription. */
export function subscribe<T = any>(baseUrl: string, token: string, query: string, variables?: Record<string, unknown>) {
  const errors: unknown[] = [];
  const client: Client = createClient({
    url: `${baseUrl.replace(/^http/, "ws")}/api/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: (error) => errors.push(error),
  });
  const events: T[] = [];
  /** When each event arrived (performance.now()), for benchmarks timing a stream of events. */
  const times: number[] = [];
  let resolveReady!: () => void;
  const waiters: Array<{ predicate: (e: T) => boolean; resolve: (e: T) => void }> = [];
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  let resolveCompleted!: () => void;
  /** Resolves when the server ends the subscription (graphql-ws `complete`). */
  const completed = new Promise<void>((resolve) => (resolveCompleted = resolve));
  client.on("connected", () => resolveReady());
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (message) => {
        const event = message.data as T;
        events.push(event);
        times.push(performance.now());
        for (const waiter of [...waiters]) {
          if (waiter.predicate(event)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      },
      error: (error) => errors.push(error),
      complete: () => resolveCompleted(),
    },
  );
  return {
    events,
    times,
    errors,
    ready,
    completed,
    /** Resolves with the first event (already received or future) matching the predicate. */
    next(predicate: (e: T) => boolean = () => true, timeoutMs = 10_000): Promise<T> {
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)} errors ${JSON.stringify(errors)}`)), timeoutMs);
        waiters.push({ predicate, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    },
    async close() {
      dispose();
      await client.dispose();
    },
  };
}
