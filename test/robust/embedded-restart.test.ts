import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { runChildServerToExit, startChildServer, type ChildServer } from "../helpers/child-server.js";
import { RestClient } from "../helpers/client.js";
import { freePort } from "../helpers/ports.js";
import { processInfo } from "../../src/db/process-info.js";

// Issue 16 point 1, as `npm start` runs (the compiled server, embedded PostgreSQL in DATA_DIR):
// restart after kill -9, a second server on the same DATA_DIR, Ctrl-C, and start-up failures.
// The tests share one DATA_DIR and run in order (initdb runs once).
const dataDir = mkdtempSync(join(tmpdir(), "fap-embedded-"));
const token = `fap_embedded_${randomBytes(12).toString("hex")}`;
let env: Record<string, string>;
const running: ChildServer[] = [];
const listeners: Server[] = [];

afterAll(async () => {
  for (const child of running) await child.stop("SIGKILL").catch(() => undefined);
  const left = postmasterPid();
  if (left && alive(left)) process.kill(left, "SIGQUIT");
  for (const listener of listeners) listener.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function postmasterPid(): number | undefined {
  try {
    return Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return undefined;
  }
}

async function start(options: { detached?: boolean } = {}): Promise<ChildServer> {
  const child = await startChildServer(env, { dataDir, compiled: true, detached: options.detached });
  running.push(child);
  return child;
}

async function waitUntil(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("embedded PostgreSQL across crashes and restarts", () => {
  let second: ChildServer;
  let organizationId: string;

  it("after kill -9 of the server, the next start stops the PostgreSQL it left running and starts again, data kept", async () => {
    env = { DATABASE_URL: "", BOOTSTRAP_TOKEN: token, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: "warn" };
    const first = await start();
    const created = await new RestClient(first.url, token).post("/organizations", { name: "Survives kill -9" });
    expect(created.status).toBe(200);
    organizationId = created.body.id;
    const orphan = postmasterPid()!;
    expect(alive(orphan)).toBe(true);
    // PostgreSQL runs in its own process group, so a terminal's Ctrl-C does not reach it.
    expect(processInfo(orphan)?.pgrp).not.toBe(processInfo(first.process.pid!)?.pgrp);

    first.process.kill("SIGKILL");
    await new Promise((r) => first.process.once("exit", r));
    // What a crash leaves: PostgreSQL still running on the data directory.
    expect(alive(orphan)).toBe(true);

    second = await start({ detached: true });
    expect(alive(orphan)).toBe(false);
    expect(postmasterPid()).not.toBe(orphan);
    expect(second.output()).toMatch(/left running by a server process that is gone; stopping it cleanly/);
    expect(second.output()).not.toMatch(/"level":"error"/);
    const read = await new RestClient(second.url, token).get(`/organizations/${organizationId}`);
    expect(read.body.name).toBe("Survives kill -9");
  }, 180_000);

  it("refuses a second server on the same DATA_DIR, naming the process that holds it", async () => {
    const refused = await runChildServerToExit(env, dataDir);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`start-up failed: DATA_DIR ${dataDir} is in use by server process ${second.process.pid}`);
    // The first goes on untouched.
    expect((await new RestClient(second.url, token).get(`/organizations/${organizationId}`)).status).toBe(200);
  }, 120_000);

  it("Ctrl-C (SIGINT to the terminal's process group) stops the server first and the database last, cleanly", async () => {
    const postmaster = postmasterPid()!;
    const exited = new Promise<number | null>((r) => second.process.once("exit", (code) => r(code)));
    process.kill(-second.process.pid!, "SIGINT");
    expect(await exited).toBe(0);
    const afterSignal = second.output().split(/"message":"shutting down"/)[1] ?? "";
    expect(afterSignal, second.output()).not.toMatch(/"level":"(warn|error)"/);
    await waitUntil(() => !alive(postmaster), "PostgreSQL to stop");
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(join(dataDir, "server.pid"))).toBe(false);
    // Its log shows a clean shutdown, not a crash to recover from.
    expect(readFileSync(join(dataDir, "postgres.log"), "utf8")).toMatch(/database system is shut down/);
  }, 120_000);

  it("a start-up failure logs its cause and exits non-zero, leaving no PostgreSQL behind", async () => {
    // The embedded database's port is taken by something else.
    const taken = await freePort();
    const listener = createServer().listen(taken);
    listeners.push(listener);
    await new Promise((r) => listener.once("listening", r));
    const portTaken = await runChildServerToExit({ ...env, EMBEDDED_PG_PORT: String(taken) }, dataDir, 120_000);
    expect(portTaken.code).toBe(1);
    expect(portTaken.output).toMatch(/start-up failed: PostgreSQL exited .* while starting:[\s\S]*(could not bind|could not create any TCP\/IP sockets)/);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(join(dataDir, "server.pid"))).toBe(false);

    // An external database that cannot be reached.
    const unreachable = await runChildServerToExit({ DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${await freePort()}/x`, LOG_LEVEL: "silent" }, mkdtempSync(join(tmpdir(), "fap-unreachable-")));
    expect(unreachable.code).toBe(1);
    expect(unreachable.output).toMatch(/start-up failed: .*ECONNREFUSED/);

    // A setting that is not valid.
    const badSetting = await runChildServerToExit({ ...env, TRUST_PROXY: "sometimes" }, dataDir);
    expect(badSetting.code).toBe(1);
    expect(badSetting.output).toMatch(/start-up failed: TRUST_PROXY must be true, false or the number of proxies/);

    // And the directory is usable again afterwards.
    const again = await start();
    expect((await new RestClient(again.url, token).get(`/organizations/${organizationId}`)).body.name).toBe("Survives kill -9");
    await again.stop();
    expect(again.process.exitCode).toBe(0);
  }, 240_000);
});
