import { createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

const FIXTURES = new URL("../fixtures/webhooks/", import.meta.url).pathname;
/** Self-signed certificate for receiver.test and *.receiver.test (also its own CA). */
export const RECEIVER_CA_FILE = `${FIXTURES}receiver.crt`;

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** What the receiver answered. */
  status: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Never answer (the sender's timeout applies). */
  hang?: boolean;
}

/**
 * A real HTTPS webhook receiver: TLS with the test certificate, every request recorded with its
 * raw body, answers decided per path by `reply` (200 by default).
 */
export async function startReceiver() {
  const requests: ReceivedRequest[] = [];
  const replies = new Map<string, (request: ReceivedRequest, count: number) => Reply>();
  const server: Server = createServer({ key: readFileSync(`${FIXTURES}receiver.key`), cert: readFileSync(RECEIVER_CA_FILE) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const request: ReceivedRequest = { path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now(), status: 0 };
      const count = requests.filter((r) => r.path === path).length;
      requests.push(request);
      const reply = replies.get(path)?.(request, count) ?? {};
      if (reply.hang) return;
      request.status = reply.status ?? 200;
      res.writeHead(request.status, { "content-type": "text/plain", ...reply.headers });
      res.end(reply.body ?? "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    /** `https://<name>.receiver.test:<port><path>` (name resolved by WEBHOOK_RESOLVE in the server under test). */
    url: (path: string, host = "hooks.receiver.test") => `https://${host}:${port}${path}`,
    reply(path: string, decide: (request: ReceivedRequest, count: number) => Reply) {
      replies.set(path, decide);
    },
    at: (path: string) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Verifies a delivery the way the README tells receivers to, with node:crypto only: Ed25519 over
 * `webhook-id.webhook-timestamp.body` with the webhook's PEM public key; `v1a,<base64>` entries.
 */
export function signatureValid(publicKeyPem: string, request: Pick<ReceivedRequest, "headers" | "body">): boolean {
  const id = request.headers["webhook-id"];
  const timestamp = request.headers["webhook-timestamp"];
  const header = request.headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof header !== "string") return false;
  const key = createPublicKey(publicKeyPem);
  const signed = Buffer.from(`${id}.${timestamp}.${request.body}`);
  return header.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    return version === "v1a" && signature !== undefined && verify(null, signed, key, Buffer.from(signature, "base64"));
  });
}

/** Server configuration admitting the receiver: its names mapped to 127.0.0.1, allowed, its certificate trusted. */
export function receiverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    WEBHOOK_RESOLVE: "hooks.receiver.test=127.0.0.1,two.receiver.test=127.0.0.1,three.receiver.test=127.0.0.1,evil.test=127.0.0.1,metadata.test=169.254.169.254,private.test=10.1.2.3,v6.test=::1",
    WEBHOOK_ALLOWED_HOSTS: "*.receiver.test",
    WEBHOOK_CA_FILE: RECEIVER_CA_FILE,
    ...extra,
  };
}
