import { describe, expect, it } from "vitest";
import { DateShape } from "./date-shape.js";
import { NumberShape } from "./number-shape.js";

/** `-?digits(.digits)?`, as the profiler's plainNumber. */
const plain = (text: string) => /^-?[0-9]+(\.[0-9]+)?$/.test(text);

describe("NumberShape.parseSimple", () => {
  it("answers as parse does (and only for values that are not dates)", () => {
    const full = new NumberShape();
    const simple = new NumberShape();
    const date = new DateShape();
    const alphabet = "01234567890123456789,.-";
    let state = 11;
    const next = () => (state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0) >>> 0;
    const values = ["20230115", "2023.01.15", "01.05.2023", "-20230115", "1,234", "1.234", "0.125", "-0", "-0.00", "0,5", "00012345", "13,394.68", "-1,234,567.5", ".5", "5.", "1..2", "1,2,3"];
    for (let i = 0; i < 30_000; i++) {
      const length = 1 + (next() % (i % 4 === 0 ? 44 : 12));
      let text = "";
      for (let k = 0; k < length; k++) text += alphabet[next() % alphabet.length];
      values.push(text);
    }
    let answered = 0;
    for (const text of values) {
      const buf = new TextEncoder().encode(`x${text}y`);
      const s = 1;
      const e = buf.length - 1;
      const answer = simple.parseSimple(buf, s, e);
      if (answer < 0) continue;
      answered++;
      expect(date.parse(buf, s, e), text).toBe(false);
      const valid = full.parse(buf, s, e);
      const got = { valid: answer === 1, dotOk: simple.dotOk, commaOk: simple.commaOk, dot: simple.dotOk ? simple.dotCents : null, comma: simple.commaOk ? simple.commaCents : null, negative: simple.negative, plain: valid ? simple.plain : null };
      const want = { valid, dotOk: full.dotOk, commaOk: full.commaOk, dot: full.dotOk ? full.dotCents : null, comma: full.commaOk ? full.commaCents : null, negative: full.negative, plain: valid ? plain(text) : null };
      expect(got, text).toEqual(want);
      expect([full.parentheses, full.trailingMinus, full.currency, full.letters], text).toEqual([false, false, false, false]);
      // -0 stays -0 (sums and ranges see it).
      if (got.dot !== null) expect(Object.is(got.dot, want.dot), text).toBe(true);
    }
    expect(answered).toBeGreaterThan(8_000);
  });
});
