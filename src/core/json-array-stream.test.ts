import { describe, expect, it } from "vitest";
import { jsonArrayElements } from "./json-array-stream.js";

/** The body cut into chunks of `size` bytes, so every element straddles chunk borders somewhere. */
async function* chunks(text: string, size: number) {
  const bytes = Buffer.from(text, "utf8");
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function elements(text: string, size = 3): Promise<string[]> {
  const out: string[] = [];
  for await (const element of jsonArrayElements(chunks(text, size), () => {
    throw new Error("not an array");
  })) out.push(element.text);
  return out;
}

describe("jsonArrayElements", () => {
  const body = ' [ {"a":"x,]}\\"{[","b":[1,{"c":2}]} ,"é\\\\",-1.5e3 , true,null,[[]],{}\n]\n ';
  const expected = ['{"a":"x,]}\\"{[","b":[1,{"c":2}]}', '"é\\\\"', "-1.5e3", "true", "null", "[[]]", "{}"];

  it("yields each element's text, whatever the chunk size (multi-byte characters split too)", async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 1 << 16]) expect(await elements(body, size)).toEqual(expected);
    expect((await elements(body)).map((text) => JSON.parse(text))).toEqual(JSON.parse(body));
    expect(await elements("[]")).toEqual([]);
  });

  it("hands a body that is not an array to notArray, whole", async () => {
    let seen = "";
    const run = async () => {
      for await (const _ of jsonArrayElements(chunks(' {"a": 1}', 2), (text) => {
        seen = text;
        throw new Error("not an array");
      }));
    };
    await expect(run()).rejects.toThrow("not an array");
    expect(seen).toBe(' {"a": 1}');
  });

  it("refuses a broken array around its elements", async () => {
    for (const text of ["[", "[1,", '[{"a":1}', '[{"a":1} {"b":2}]', "[1,]", "[,1]", "[1]]", "[1] x", '["open']) {
      await expect(elements(text), text).rejects.toThrow(/Request body is not valid JSON/);
    }
  });
});
