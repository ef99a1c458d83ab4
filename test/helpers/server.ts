import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { loadConfig, type Config } from "../../src/config.js";
import { createLogger } from "../../src/core/logger.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { families } from "../../src/modules/index.js";
import { testJobsFamily } from "../fixtures/test-jobs.js";
import { createTestDatabase } from "./database.js";
import { graphql, RestClient } from "./client.js";

export interface TestServer {
  url: string;
  databaseUrl: string;
  dataDir: string;
  /** The bootstrap App Admin token (every permission). */
  token: string;
  api: RestClient;
  gql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): ReturnType<typeof graphql<T>>;
  running: RunningServer;
  close(): Promise<void>;
}

/**
 * Starts the real server in-process on a free port against a fresh database (cloned from the
 * migrated template), the way `npm start` runs it with DATABASE_URL set.
 */
export async function startTestServer(overrides: Partial<Config> & { env?: Record<string, string> } = {}): Promise<TestServer> {
  const { url: databaseUrl } = overrides.databaseUrl ? { url: overrides.databaseUrl } : await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "fap-data-"));
  const token = `fap_test_${randomBytes(16).toString("hex")}`;
  const config: Config = {
    ...loadConfig({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error", ...overrides.env }),
    port: 0,
    host: "127.0.0.1",
    dataDir,
    bootstrapToken: token,
    ...overrides,
    databaseUrl,
  };
  const running = await startServer(config, createLogger(config.logLevel), { families: [...families, testJobsFamily] });
  const api = new RestClient(running.url, token);
  return {
    url: running.url,
    databaseUrl,
    dataDir,
    token,
    api,
    gql: (query, variables, asToken) => graphql(running.url, asToken ?? token, query, variables),
    running,
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
