import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;
const require = createRequire(import.meta.url);
const config = require(join(ROOT, ".dependency-cruiser.cjs"));

async function violations(baseDir: string, roots: string[], tsConfig?: string): Promise<IViolation[]> {
  const result = await cruise(roots, {
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    baseDir,
    tsPreCompilationDeps: true,
    exclude: config.options.exclude,
    doNotFollow: config.options.doNotFollow,
    ...(tsConfig ? { tsConfig: { fileName: tsConfig } } : {}),
  });
  return (result.output as ICruiseResult).summary.violations;
}

const describeViolation = (v: IViolation) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(" -> ")})` : ""}`;

describe("import structure (docs/architecture.md, Layers)", () => {
  const scratch = mkdtempSync(join(tmpdir(), "fap-layers-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("has no import cycle and no import from a lower layer up to a higher one", async () => {
    const found = await violations(ROOT, ["src", "rest", "schema", "subscriptions", "web"], join(ROOT, "tsconfig.json"));
    expect(found.map(describeViolation)).toEqual([]);
  }, 60_000);

  it("reports a cycle and an upward import when the code has them", async () => {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    };
    write("src/core/low.ts", 'import { family } from "../modules/things/index.js";\nexport const low = family;\n');
    write("src/modules/things/index.ts", 'import { other } from "./other.js";\nexport const family = other;\n');
    write("src/modules/things/other.ts", 'import { family } from "./index.js";\nexport const other = () => family;\n');
    const found = (await violations(scratch, ["src"])).map((v) => v.rule.name);
    expect(found).toContain("no-circular");
    expect(found).toContain("no-upward-from-foundation");
  }, 60_000);

  it("has no test importing from bench/ (helpers tests share live in test/helpers/)", () => {
    const testFiles = ["src", "rest", "schema", "subscriptions", "web", "test"].flatMap((dir) =>
      (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).filter((f) => /\.ts$/.test(f) && (dir === "test" || f.endsWith(".test.ts"))).map((f) => join(dir, f)),
    );
    expect(testFiles.length).toBeGreaterThan(50);
    const fromBench = testFiles.filter((f) => /(?:from|import)\s*\(?\s*["'][^"']*\bbench\//.test(readFileSync(join(ROOT, f), "utf8")));
    expect(fromBench).toEqual([]);
  });
});
