import { describe, expect, it } from "vitest";
import { joinCsvChunks } from "./warehouse-csv.js";

/** Each chunk given as its pieces of text; the joined output as text. */
async function join(names: string[], chunks: Array<Array<string | Buffer>>): Promise<string> {
  async function* pieces(chunk: Array<string | Buffer>) {
    for (const piece of chunk) yield Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
  }
  async function* all() {
    for (const chunk of chunks) yield pieces(chunk);
  }
  const out: Buffer[] = [];
  for await (const piece of joinCsvChunks(names, all())) out.push(piece);
  return Buffer.concat(out).toString("utf8");
}

describe("joinCsvChunks (warehouse EXTERNAL_LINKS results)", () => {
  it("drops the first chunk's header and joins later chunks, adding the line break a chunk lacks", async () => {
    expect(await join(["a", "b"], [["a,b\n1,2\n3,4"], ["5,6\n"], ["7,8"]])).toBe("1,2\n3,4\n5,6\n7,8\n");
  });

  it("keeps a first record that is not the header, and a later chunk's record equal to the names", async () => {
    expect(await join(["a", "b"], [["1,2\n"], ["a,b\n"]])).toBe("1,2\na,b\n");
    expect(await join(["a", "b"], [["a,b,c\n1,2\n"]])).toBe("a,b,c\n1,2\n");
  });

  it("finds the header across pieces, quoted (commas, quotes, line breaks) and in UTF-8 split inside a character", async () => {
    const header = Buffer.from('"x,y","say ""hi""","two\nlines",Größe\n1,2,3,4\n');
    const split = header.indexOf(0xc3) + 1; // inside the two bytes of ö
    const cut = [header.subarray(0, 3), header.subarray(3, split), header.subarray(split)];
    expect(await join(["x,y", 'say "hi"', "two\nlines", "Größe"], [cut])).toBe("1,2,3,4\n");
  });

  it("keeps CRLF: the header's CR is not part of its last name, and added line breaks are CRLF", async () => {
    expect(await join(["a", "b"], [["a,b\r\n1,2\r\n3,4"], ["5,6"]])).toBe("1,2\r\n3,4\r\n5,6\r\n");
    expect(await join(["a", "b"], [['a,"b"\r', "\n1,2\r\n"]])).toBe("1,2\r\n");
  });

  it("a first chunk holding only the header, with or without its line break, yields nothing of it", async () => {
    expect(await join(["a", "b"], [["a,b"], ["1,2\n"]])).toBe("1,2\n");
    expect(await join(["a", "b"], [["a,b\r"], ["1,2\n"]])).toBe("1,2\n");
    expect(await join(["a", "b"], [["a,", "b\n"], ["1,2\n"]])).toBe("1,2\n");
    expect(await join(["a", "b"], [["1,", "2"]])).toBe("1,2\n");
  });

  it("passes a first line longer than a header could be through unparsed", async () => {
    const long = "x".repeat((1 << 20) + 10);
    expect(await join(["a"], [[long.slice(0, 600_000), long.slice(600_000) + "\n1\n"]])).toBe(`${long}\n1\n`);
  });
});
