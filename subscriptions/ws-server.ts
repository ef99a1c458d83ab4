import type { IncomingMessage, Server } from "node:http";
import { randomUUID } from "node:crypto";
import { WebSocketServer, type WebSocket } from "ws";
import { useServer } from "graphql-ws/use/ws";
import { GraphQLError, type ExecutionArgs } from "graphql";
import type { App } from "../src/app-types.js";
import { GRAPHQL_PATH, type AppYoga } from "../src/graphql/yoga.js";
import { formatError } from "../src/graphql/error-format.js";
import { clientAddress, requestOrigin } from "../src/auth/request-address.js";
import type { RequestIdentity } from "../src/graphql/context-factory.js";

function authorizationFrom(params: Record<string, unknown> | undefined, header: string | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization ?? header;
  return typeof value === "string" ? value : undefined;
}

/** How often open connections check that their token still holds (expiry, a disabled user). */
const RECHECK_MS = 30_000;

type ConnectionContext = { connectionParams?: Record<string, unknown>; extra: { request: IncomingMessage; socket: WebSocket } };

/**
 * graphql-ws on the GraphQL path. The bearer token travels in `connectionParams.Authorization`
 * (or the upgrade request's header); a connection with a bad token is refused at connect time.
 * An open connection lives only as long as its token holds: when any process changes a token
 * (a deletion) and every RECHECK_MS (expiry, a disabled user), each connection authenticates
 * again and is closed with 4401 if that fails. A token's permissions never change after creation.
 */
export function attachSubscriptions(server: Server, yoga: AppYoga, app: App): { close(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: GRAPHQL_PATH });
  const identity = (ctx: ConnectionContext): RequestIdentity => ({
    authorization: authorizationFrom(ctx.connectionParams, ctx.extra.request.headers.authorization),
    clientIp: clientAddress(ctx.extra.request, app.config),
    origin: requestOrigin(ctx.extra.request, app.config),
    requestId: randomUUID(),
  });
  const open = new Map<WebSocket, ConnectionContext>();
  const expiryTimers = new Map<WebSocket, NodeJS.Timeout>();
  const forget = (socket: WebSocket) => {
    open.delete(socket);
    clearTimeout(expiryTimers.get(socket));
    expiryTimers.delete(socket);
  };
  const recheck = async () => {
    for (const [socket, ctx] of open) {
      const { authorization, clientIp } = identity(ctx);
      const valid = await app.tokens.authenticate(authorization, clientIp).then(
        () => true,
        () => false,
      );
      if (valid) continue;
      socket.close(4401, "Unauthorized: the token is unknown, deleted or expired");
      forget(socket);
    }
  };
  /**
   * Closes the connection the moment its token expires (events kept flowing for up to RECHECK_MS
   * after expiry). Timers reach at most ~24.8 days; a later expiry is met by a recheck on the way.
   */
  const closeAtExpiry = (socket: WebSocket, expiresAt: number) => {
    const delay = expiresAt - Date.now();
    if (delay > 2 ** 31 - 1) return;
    const timer = setTimeout(() => {
      socket.close(4401, "Unauthorized: the token expired");
      forget(socket);
    }, Math.max(0, delay));
    timer.unref();
    expiryTimers.set(socket, timer);
  };
  const tokenChanges = app.pubsub.subscribe("auth-tokens-changed");
  void (async () => {
    for await (const _ of tokenChanges) {
      app.tokens.invalidate();
      await recheck().catch((error) => app.logger.warn("could not check the tokens of open subscriptions", { error }));
    }
  })();
  const timer = setInterval(() => void recheck().catch((error) => app.logger.warn("could not check the tokens of open subscriptions", { error })), RECHECK_MS);
  timer.unref();
  const disposable = useServer(
    {
      onConnect: async (ctx) => {
        try {
          const { authorization, clientIp } = identity(ctx);
          const auth = await app.tokens.authenticate(authorization, clientIp);
          open.set(ctx.extra.socket, ctx);
          closeAtExpiry(ctx.extra.socket, auth.expiresAt);
          return true;
        } catch {
          return false;
        }
      },
      onClose: (ctx) => forget(ctx.extra.socket),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors?.length ? { ...result, errors: result.errors.map(formatError) } : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(formatError),
      execute: (args: ExecutionArgs) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args: ExecutionArgs) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ identity: identity(ctx), params } as never);
        let document: ReturnType<typeof parse>;
        try {
          document = parse(params.query);
        } catch (error) {
          // A document that does not parse (or nests too deep) is this operation's error, not the connection's.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return { schema, operationName: params.operationName, document, variableValues: params.variables, contextValue: await contextFactory(), rootValue: { execute, subscribe } };
      },
    },
    wss,
  );
  return {
    async close() {
      clearInterval(timer);
      for (const socket of [...expiryTimers.keys()]) forget(socket);
      await tokenChanges.return?.();
      // dispose() closes the WebSocketServer itself; closing it again would throw.
      await disposable.dispose();
    },
  };
}
