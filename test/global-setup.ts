import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../src/db/embedded-postgres.js";
import { migrate } from "../src/db/migrate.js";
import { createLogger } from "../src/core/logger.js";
import { buildDist } from "./helpers/child-server.js";
import { freePort } from "./helpers/ports.js";
import { findRedisServer, REDIS_MISSING, startRedis, type RedisProcess } from "./helpers/redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDatabase: string;
    redisUrl: string;
  }
}

export const TEMPLATE_DATABASE = "fap_template";

let database: EmbeddedDatabase | undefined;
let redis: RedisProcess | undefined;
let dir: string | undefined;

/**
 * One PostgreSQL server for the whole run (real, embedded) with a migrated template database;
 * each test file clones the template into its own database. One Redis server for the tests that
 * exercise multi-process behaviour. Both are real processes, stopped at the end.
 */
export async function setup(project: TestProject) {
  // The tests that run the compiled server (`npm start`) share one build of dist/.
  buildDist();
  process.env.FAP_TEST_DIST_BUILT = "1";
  if (process.env.CI && !process.env.TEST_REDIS_URL && !findRedisServer()) {
    throw new Error("CI=true needs every test, and the Redis tests need redis-server on the PATH (apt-get install redis-server) or TEST_REDIS_URL.");
  }
  if (process.env.TEST_DATABASE_URL) {
    project.provide("pgAdminUrl", process.env.TEST_DATABASE_URL);
  } else {
    dir = mkdtempSync(join(tmpdir(), "fap-test-"));
    database = await startEmbeddedPostgres(dir, await freePort(), createLogger("silent"));
    project.provide("pgAdminUrl", database.url);
  }
  const adminUrl = process.env.TEST_DATABASE_URL ?? database!.url;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // This throwaway cluster does not need a commit on disk before it answers: no test crashes it
  // (the crash tests kill servers, and the one test of PostgreSQL's own restart runs its own
  // cluster in its DATA_DIR). Without the WAL flush per commit, the thousands of commits of a
  // run stop waiting on a disk the other test processes share.
  if (database) await admin.query("ALTER ROLE CURRENT_USER SET synchronous_commit = off");
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${TEMPLATE_DATABASE}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  await migrate(pool);
  await pool.end();
  project.provide("templateDatabase", TEMPLATE_DATABASE);

  // Redis is a real server too, when the machine has one; without it the few tests that need Redis
  // are skipped (see test/helpers/redis-tests.ts), except under CI, which must run everything.
  if (process.env.TEST_REDIS_URL) {
    project.provide("redisUrl", process.env.TEST_REDIS_URL);
  } else if (findRedisServer()) {
    redis = await startRedis();
    project.provide("redisUrl", redis.url);
  } else {
    process.stdout.write(`\n${REDIS_MISSING}\n\n`);
    project.provide("redisUrl", "");
  }
}

export async function teardown() {
  await redis?.stop();
  await database?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
