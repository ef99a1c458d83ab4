import type { App } from "../app-services.js";
import type { AuthInfo } from "../auth/authenticate.js";
import type { PrismaClient } from "../generated/prisma/client.js";

/** Per-request context, built once per HTTP request or WebSocket operation. */
export interface RequestContext {
  app: App;
  prisma: PrismaClient;
  /** The bearer token's identity and permissions; null only while building the context fails. */
  auth: AuthInfo | null;
  requestId: string;
  clientIp: string;
  /** Scheme and host the request was addressed to, honouring TRUST_PROXY: the base of emailed links without PUBLIC_URL. */
  origin?: string;
  /** Files a REST upload route streamed into storage for this request (see src/storage/uploads.ts). */
  uploads?: Map<string, StagedUpload>;
  /** Names this request holds an exclusive claim on for its whole length (src/db/request-claim.ts). */
  claims?: Set<string>;
}

/**
 * Reads a new file's bytes while they are stored (the file manager's inspection on arrival):
 * `through` passes the bytes on to storage at the reader's pace; `result` is what the reading
 * found, once they have ended. What it made is the file's once `keep` is called; `discard` removes
 * it otherwise (the file was not created).
 */
export interface UploadObserver<R = unknown> {
  through(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
  result(): Promise<R>;
  keep(): void;
  discard(): Promise<void>;
}

/** Bytes of one multipart file part, already in storage; a mutation takes it over by id. */
export interface StagedUpload {
  id: string;
  key: string;
  fileName: string;
  contentType: string;
  size: number;
  taken: boolean;
  /** What read the bytes as they arrived (an upload route's `observe`), with its result. */
  observer?: UploadObserver;
  observed?: unknown;
}

/** The user every change made in this request is attributed to. */
export function actorOf(ctx: RequestContext): { userId: string; userName: string } {
  if (!ctx.auth) throw new Error("actorOf called without an authenticated request");
  return { userId: ctx.auth.userId, userName: ctx.auth.userName };
}
