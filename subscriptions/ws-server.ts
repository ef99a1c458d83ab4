import type { Server } from "node:http";
import { randomUUID } from "node:crypto";
import { WebSocketServer } from "ws";
import { useServer } from "graphql-ws/use/ws";
import type { ExecutionArgs } from "graphql";
import type { App } from "../src/app-services.js";
import { clientAddress, GRAPHQL_PATH, requestOrigin, type AppYoga } from "../src/graphql/yoga.js";
import type { RequestIdentity } from "../src/graphql/context-factory.js";

function authorizationFrom(params: Record<string, unknown> | undefined, header: string | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization ?? header;
  return typeof value === "string" ? value : undefined;
}

/**
 * graphql-ws on the GraphQL path. The bearer token travels in `connectionParams.Authorization`
 * (or the upgrade request's header); a connection with a bad token is refused at connect time.
 */
export function attachSubscriptions(server: Server, yoga: AppYoga, app: App): { close(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: GRAPHQL_PATH });
  const identity = (ctx: { connectionParams?: Record<string, unknown>; extra: { request: import("node:http").IncomingMessage } }): RequestIdentity => ({
    authorization: authorizationFrom(ctx.connectionParams, ctx.extra.request.headers.authorization),
    clientIp: clientAddress(ctx.extra.request, app.config.trustProxy),
    origin: requestOrigin(ctx.extra.request, app.config.trustProxy),
    requestId: randomUUID(),
  });
  const disposable = useServer(
    {
      onConnect: async (ctx) => {
        try {
          await app.tokens.authenticate(identity(ctx).authorization, identity(ctx).clientIp);
          return true;
        } catch {
          return false;
        }
      },
      execute: (args: ExecutionArgs) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args: ExecutionArgs) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ identity: identity(ctx), params } as never);
        const document = parse(params.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return { schema, operationName: params.operationName, document, variableValues: params.variables, contextValue: await contextFactory(), rootValue: { execute, subscribe } };
      },
    },
    wss,
  );
  return {
    async close() {
      // dispose() closes the WebSocketServer itself; closing it again would throw.
      await disposable.dispose();
    },
  };
}
