import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { createEngagement, waitFor } from "./helpers/entities.js";
import { freePort } from "./helpers/ports.js";
import { RECEIVER_CA_FILE, receiverEnv } from "./helpers/webhook-receiver.js";

// Issue 18 point 8: the receiver examples of docs/webhooks.md, run exactly as written, verify real
// deliveries of this server (and refuse a tampered one).
const DOC = readFileSync(new URL("../docs/webhooks.md", import.meta.url), "utf8");
const TLS_KEY_FILE = new URL("./fixtures/webhooks/receiver.key", import.meta.url).pathname;
const PYTHON = spawnSync("python3", ["--version"]).status === 0;

function example(file: string): string {
  const match = new RegExp("```\\w+ file=" + file.replace(".", "\\.") + "\\n([\\s\\S]*?)\\n```").exec(DOC);
  if (!match) throw new Error(`docs/webhooks.md has no code block file=${file}`);
  return match[1] + "\n";
}

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), "fap-doc-receivers-"));
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: receiverEnv({ WEBHOOK_RESOLVE: "node.receiver.test=127.0.0.1,python.receiver.test=127.0.0.1" }) });
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function listening(port: number): Promise<void> {
  await waitFor(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", () => resolve(undefined));
      }),
    `a receiver on port ${port}`,
  );
}

/** Registers a webhook, starts the documented receiver with its public key, and lets an event reach it. */
async function deliverTo(command: string, file: string, host: string) {
  const port = await freePort();
  const webhook = await server.api.post("/webhooks", { name: file, url: `https://${host}:${port}/hooks`, events: ["engagement.created"] });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(200);
  writeFileSync(join(dir, file), example(file));
  const keyFile = join(dir, `${file}.pem`);
  writeFileSync(keyFile, webhook.body.publicKey);
  const child = spawn(command, [join(dir, file)], {
    env: { ...process.env, WEBHOOK_PUBLIC_KEY_FILE: keyFile, PORT: String(port), HOST: "127.0.0.1", TLS_CERT_FILE: RECEIVER_CA_FILE, TLS_KEY_FILE },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await listening(port);
  const engagement = await createEngagement(server.api, `Docs ${file}`);
  const log = await waitFor(async () => {
    const page = await server.api.post("/webhook-event-logs/query", { webhookId: webhook.body.id, status: { $ne: "IN_PROGRESS" } });
    return page.body.content[0];
  }, `the delivery to ${file}`);
  return { port, log, engagement, output: () => output };
}

/** Sends the logged request again, optionally altered, straight to the receiver; returns its status. */
function resend(port: number, log: { requestHeaders: Record<string, string[]>; requestBody: string }, change: { body?: string; signature?: string } = {}): Promise<number> {
  const headers = Object.fromEntries(Object.entries(log.requestHeaders).map(([name, values]) => [name, values[0]]));
  if (change.signature) headers["webhook-signature"] = change.signature;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, servername: "receiver.test", path: "/hooks", method: "POST", headers, ca: readFileSync(RECEIVER_CA_FILE) }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(change.body ?? log.requestBody);
  });
}

async function checkReceiver(command: string, file: string, host: string) {
  const { port, log, output } = await deliverTo(command, file, host);
  expect(log, output()).toMatchObject({ status: "COMPLETED", responseStatusCode: 204 });
  await waitFor(async () => (output().includes(`verified ${log.eventId} engagement.created`) ? true : undefined), `the receiver's output: ${output()}`);
  // The same request again (a retry) is accepted and not processed twice; tampering is refused.
  expect(await resend(port, log)).toBe(204);
  expect(await resend(port, log, { body: log.requestBody.replace(/"type":"[^"]*"/, '"type":"engagement.deleted"') })).toBe(400);
  const signature = log.requestHeaders["webhook-signature"][0];
  const flipped = Buffer.from(signature.slice(4), "base64");
  flipped[10] ^= 1;
  expect(await resend(port, log, { signature: `v1a,${flipped.toString("base64")}` })).toBe(400);
  expect(await resend(port, log, { signature: "v1,c2lnbmF0dXJl" })).toBe(400);
  await sleep(100);
  expect(output().match(/verified/g)).toHaveLength(1);
}

describe("receiver examples of docs/webhooks.md, against real deliveries", () => {
  it("Node.js (node:crypto only) verifies a delivery and refuses tampering", async () => {
    await checkReceiver(process.execPath, "receiver.mjs", "node.receiver.test");
  });

  it.skipIf(!PYTHON)("Python (standard library only) verifies a delivery and refuses tampering", async () => {
    await checkReceiver("python3", "receiver.py", "python.receiver.test");
  });

  it.skipIf(!PYTHON)("the cryptography variant agrees, where the package is installed", async () => {
    const probe = spawnSync("python3", ["-c", "import cryptography"]);
    if (probe.status !== 0) return; // the package is optional; the standard-library receiver is the tested path
    const webhook = await server.api.post("/webhooks/query", { name: "receiver.py" });
    const [hook] = webhook.body.content;
    const page = await server.api.post("/webhook-event-logs/query", { webhookId: hook.id, status: "COMPLETED" });
    const log = page.body.content[0];
    const snippet = /```python\n(from cryptography[\s\S]*?)\n```/.exec(DOC)![1];
    const script = `${snippet}
import base64, sys, json
log = json.loads(sys.stdin.read())
pem, headers = log["publicKey"], {k: v[0] for k, v in log["requestHeaders"].items()}
message = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.{log['requestBody']}".encode()
signature = base64.b64decode(headers["webhook-signature"].split(",", 1)[1])
print(verify_with_cryptography(pem, message, signature), verify_with_cryptography(pem, message + b" ", signature))
`;
    const run = spawnSync("python3", ["-c", script], { input: JSON.stringify({ ...log, publicKey: hook.publicKey }), encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("True False");
  });
});
