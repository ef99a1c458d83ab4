import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./ports.js";

export interface RedisProcess {
  url: string;
  stop(): Promise<void>;
}

/** The redis-server executable on the PATH (Debian's `redis-server` package; `.ci/run` installs it), if any. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The line a run without Redis prints, and the reason its Redis tests show as skipped. */
export const REDIS_MISSING =
  "Redis tests skipped: no redis-server on the PATH. Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set TEST_REDIS_URL to run them; under CI=true they are required.";

/** Starts a throw-away redis-server on a free port. */
export async function startRedis(executable = findRedisServer() ?? "redis-server"): Promise<RedisProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(executable, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      break;
    } catch (error) {
      client.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server did not start: ${(error as Error).message} (is redis-server installed?)`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}
