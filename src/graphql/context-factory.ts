import type { App } from "../app-types.js";
import type { RequestContext } from "./context.js";
import { noteLogin } from "../auth/recent-logins.js";

export interface RequestIdentity {
  authorization: string | null | undefined;
  clientIp: string;
  /** Scheme and host the request was addressed to (see requestOrigin); undefined when unusable. */
  origin?: string;
  requestId: string;
}

/** Authenticates the bearer token once and builds the context every resolver of the request shares. */
export async function buildRequestContext(app: App, identity: RequestIdentity): Promise<RequestContext> {
  const auth = await app.tokens.authenticate(identity.authorization, identity.clientIp);
  noteLogin(app, auth.userId, identity.clientIp);
  return { app, prisma: app.prisma, auth, requestId: identity.requestId, clientIp: identity.clientIp, origin: identity.origin };
}
