import { execFile } from "node:child_process";
import { join } from "node:path";
import type { TestServer } from "./server.js";

const CLI = join(process.cwd(), "bin", "fap.mjs");

export interface FapResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `fap` command-line client as a child process against `server`, with its state under
 * `dir` (HOME and FAP_STATE_DIR) and nothing of the parent's environment but PATH.
 */
export function runFap(
  server: TestServer,
  dir: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number; maxBuffer?: number } = {},
): Promise<FapResult> {
  const env = { PATH: process.env.PATH, HOME: dir, FAP_STATE_DIR: join(dir, "state"), FAP_SERVER: server.url, FAP_TOKEN: server.token, ...options.env };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: options.timeoutMs ?? 60_000, maxBuffer: options.maxBuffer ?? 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
