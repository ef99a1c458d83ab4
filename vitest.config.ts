import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/sequencer.js";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Vitest otherwise loads a second copy of graphql ("Duplicate graphql modules").
    alias: { graphql: require.resolve("graphql") },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "rest/**/*.test.ts", "subscriptions/**/*.test.ts", "web/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 3,
    // The files that start servers and browsers first (test/sequencer.ts): they set the run's length.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
