import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Debian's chromium (CHROMIUM_PATH overrides); `.ci/run` installs it when missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether browser tests can run here; under CI=true a missing browser fails instead of skipping. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === "true") throw new Error(`chromium not found at ${CHROMIUM_PATH} (CI must install it: .ci/run does)`);
  console.warn(`Browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
}

/** Screenshots and other browser test output: test-output/<name>/ (gitignored). */
export function outputDir(name: string): string {
  const dir = join(process.cwd(), "test-output", name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
