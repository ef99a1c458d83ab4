import { describe, expect, it } from "vitest";
import { recordFromTexts } from "../csv/tokenizer.js";
import { RowHashSet } from "./distinct.js";
import { DuplicateRows } from "./duplicate-rows.js";

/** Row by row through RowHashSet, as the profiler did before batching. */
function reference(rows: [number, number, string[]][], maxSlots?: number) {
  const set = new RowHashSet(maxSlots);
  const examples: [number, string[]][] = [];
  let count = 0;
  rows.forEach(([h1, h2, values], index) => {
    if (!set.addIsDuplicate(h1, h2)) return;
    count++;
    if (examples.length < 5) examples.push([index, values.map((v) => v.trim())]);
  });
  return { count, examples, complete: set.complete };
}

describe("DuplicateRows", () => {
  for (const [label, n, distinct, maxSlots] of [
    ["few repeats", 20_000, 19_000, undefined],
    ["many repeats", 20_000, 3_000, undefined],
    ["table full", 30_000, 25_000, 1 << 14],
  ] as const) {
    it(`finds what row-by-row lookups find (${label})`, () => {
      let state = 7;
      const next = () => (state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0);
      const keys = Array.from({ length: distinct }, () => [next(), next()] as const);
      // The zero key and its twin (RowHashSet reads key 0 as 1).
      keys.push([0, 0], [0, 1 << 11]);
      const rows: [number, number, string[]][] = [];
      for (let i = 0; i < n; i++) {
        const k = i < distinct ? i : (next() >>> 0) % keys.length;
        rows.push([keys[k][0], keys[k][1], [` v${k} `, `${i % 3}`]]);
      }
      rows.push([0, 0, ["zero"]], [0, 1 << 11, ["twin"]]);
      const batched = new DuplicateRows(5, maxSlots);
      if (label === "many repeats") batched.reserve(n);
      rows.forEach(([h1, h2, values], index) => batched.add(h1, h2, recordFromTexts(values, index), values.length));
      batched.flush();
      expect({ count: batched.count, examples: batched.examples, complete: batched.complete }).toEqual(reference(rows, maxSlots));
    });
  }
});
