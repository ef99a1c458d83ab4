import { describe, expect, it } from "vitest";
import { estimatePhase, expectedMs } from "./analysis-source.step-progress.js";

describe("progress estimates of set-based steps", () => {
  it("scale with the source's staging pace, else with its rows", () => {
    expect(expectedMs({ rowCount: 1_000_000, ms: 3000 }, "parse")).toBeCloseTo(1860);
    expect(expectedMs({ rowCount: 1_000_000 }, "effectiveDates")).toBeCloseTo(1150);
    expect(expectedMs(null, "transactions")).toBe(0);
  });

  it("report the phase start at once, then rising estimates held below the phase end", async () => {
    const seen: number[] = [];
    const stop = estimatePhase((p) => seen.push(p), 20, 60, 60, 10);
    await new Promise((r) => setTimeout(r, 200));
    stop();
    const count = seen.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.length).toBe(count);
    expect(seen[0]).toBe(20);
    expect(seen.length).toBeGreaterThan(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(Math.max(...seen)).toBeCloseTo(20 + 40 * 0.95);
  });
});
