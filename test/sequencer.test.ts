import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LONGEST_FILES } from "./sequencer.js";

describe("the longest-first test order", () => {
  it("names test files that exist, each once", () => {
    const root = new URL("../", import.meta.url).pathname;
    expect(LONGEST_FILES.filter((file) => !existsSync(root + file))).toEqual([]);
    expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
  });
});
