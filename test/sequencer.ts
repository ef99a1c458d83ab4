import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (they start server processes, browsers, Redis, big ledgers), longest
 * first, from measured runs. Started first, they run beside the many short files instead of
 * after them: a clean checkout (CI) has no timing cache, and vitest's default order (largest file
 * first) would otherwise start several of these small files last and leave the run waiting on
 * them with idle workers. Keep the list to the long ones; the order among the rest hardly matters.
 */
export const LONGEST_FILES = [
  "test/robust/crash-recovery.test.ts",
  "src/jobs/job-recovery.test.ts",
  "src/modules/users/modify-users-limit.test.ts",
  "test/startup.test.ts",
  "test/webhooks-processes.test.ts",
  "src/modules/analysis-sources/analysis-sources.test.ts",
  "src/modules/analysis-results/scores.test.ts",
  "test/robust/embedded-restart.test.ts",
  "test/robust/crash-analysis.test.ts",
  "test/robust/authorization-audit.test.ts",
  "src/modules/analysis-results/analysis-types.test.ts",
  "src/modules/webhooks/webhooks.test.ts",
  "src/modules/account-groupings/grouping-file-endpoints.test.ts",
  "src/modules/events/events-subscription.test.ts",
  "test/graphql.test.ts",
  "test/robust/fuzz-uploads.test.ts",
  "src/modules/async-results/async-results.test.ts",
  "test/web/console.e2e.test.ts",
  "test/web/cli-large.test.ts",
  "test/robust/load.test.ts",
  "test/multi-process.test.ts",
  "test/storage-processes.test.ts",
];

/** Longest files first (the list above), then vitest's own order (cached durations, else file size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FILES.indexOf(relative(spec.project.config.root, spec.moduleId));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
