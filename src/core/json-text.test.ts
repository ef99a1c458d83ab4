import { describe, expect, it } from "vitest";
import { compactJson, forEachMember, JsonKind, objectKeys } from "./json-text.js";

function members(text: string): Array<[string, string, JsonKind]> {
  const out: Array<[string, string, JsonKind]> = [];
  forEachMember(text, (key, raw, kind) => out.push([key, raw, kind]));
  return out;
}

describe("JSON text helpers", () => {
  const pretty = '{\n\t"b" : "x, \\"y\\" }",\r\n  "2023": 12345678901234567890 , "a\\u0042":[ 1.10, {"c" :null} ],"t":true,"f":false,"n":null,"o":{ },"e":-1.5E-3 }';

  it("removes whitespace between tokens only, leaving strings and numbers alone", () => {
    const compact = compactJson(pretty);
    expect(compact).toBe('{"b":"x, \\"y\\" }","2023":12345678901234567890,"a\\u0042":[1.10,{"c":null}],"t":true,"f":false,"n":null,"o":{},"e":-1.5E-3}');
    expect(JSON.parse(compact)).toEqual(JSON.parse(pretty));
    const already = '{"a":"b c"}';
    expect(compactJson(already)).toBe(already);
  });

  it("visits members in the order of the text with their source text, whitespace or not", () => {
    const expected: Array<[string, string, JsonKind]> = [
      ["b", '"x, \\"y\\" }"', JsonKind.String],
      ["2023", "12345678901234567890", JsonKind.Number],
      ["aB", "[ 1.10, {\"c\" :null} ]", JsonKind.Array],
      ["t", "true", JsonKind.True],
      ["f", "false", JsonKind.False],
      ["n", "null", JsonKind.Null],
      ["o", "{ }", JsonKind.Object],
      ["e", "-1.5E-3", JsonKind.Number],
    ];
    expect(members(pretty)).toEqual(expected);
    expect(members(compactJson(pretty)).map(([key, raw]) => [key, raw])).toEqual(expected.map(([key, raw]) => [key, compactJson(raw)]));
    expect(objectKeys('{"9":1,"x":2,"1":3}')).toEqual(["9", "x", "1"]);
    expect(members("{}")).toEqual([]);
    expect(members(' { } ')).toEqual([]);
  });
});
