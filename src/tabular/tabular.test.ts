import { describe, expect, it } from "vitest";
import { DelimitedParser, readDelimited } from "./delimited-reader.js";
import { csvLine, csvWriter, DEFAULT_CSV, quotedListWriter } from "./csv-writer.js";
import { binaryFormat, byteOrderMark, detectEncoding } from "./bytes.js";
import { utf8Lines } from "./lines.js";
import { decodeText } from "./decode.js";

async function* pieces<T>(items: T[]) {
  for (const item of items) yield item;
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe("delimited reader", () => {
  it("reads quoted fields with delimiters, doubled quotes and line breaks, whatever the chunking", async () => {
    const text = 'a;b;c\r\n"x;y";"say ""hi""";"two\nlines"\r\nlast;;\n"";end;';
    const expected = [["a", "b", "c"], ["x;y", 'say "hi"', "two\nlines"], ["last", "", ""], ["", "end", ""]];
    for (const size of [1, 2, 3, 7, 1000]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(await collect(readDelimited(pieces(chunks), { delimiter: ";" }))).toEqual(expected);
    }
  });

  it("stops after maxRecords records and says where the next one starts", () => {
    const parser = new DelimitedParser({ delimiter: ",", recordDelimiter: "\n" });
    expect(parser.push('"a\nb",c', false, 1)).toEqual([]);
    expect(parser.push("\n1,2\n3,4\n", false, 1)).toEqual([["a\nb", "c"]]);
    expect(parser.consumed).toBe(8);
    expect(parser.push("", true)).toEqual([["1", "2"], ["3", "4"]]);
    expect(parser.consumed).toBe(16);
  });

  it("supports multi-character delimiters, custom record delimiters and no quoting", async () => {
    const parser = new DelimitedParser({ delimiter: "||", recordDelimiter: "#\n", quote: null });
    const records = [...parser.push('a||"b||c#'), ...parser.push("\nd||e#\n"), ...parser.push("", true)];
    expect(records).toEqual([["a", '"b', "c"], ["d", "e"]]);
  });

  it("writes CSV fields quoted only when needed", () => {
    expect(csvLine(["plain", "with,comma", 'quote"d', "line\nbreak", null, 12.5, true, { a: 1 }])).toBe('plain,"with,comma","quote""d","line\nbreak",,12.5,true,"{""a"":1}"\r\n');
  });

  it("splits UTF-8 lines across chunk borders, also inside a multi-byte character", async () => {
    const bytes = Buffer.from("ä1\r\nö2\n€3");
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    expect(await collect(utf8Lines(pieces(chunks)))).toEqual(["ä1", "ö2", "€3"]);
  });

  it("decodes legacy encodings and drops a byte order mark", async () => {
    expect((await collect(decodeText(pieces([Buffer.from([0x4b, 0xe4, 0x73, 0x65])]), "windows-1252"))).join("")).toBe("Käse");
    expect((await collect(decodeText(pieces([Buffer.from([0xef, 0xbb, 0xbf, 0x61])])))).join("")).toBe("a");
    expect((await collect(decodeText(pieces([Buffer.from([0x84, 0x81])]), "cp850"))).join("")).toBe("äü");
  });
});

describe("the one CSV writer", () => {
  it("writes any format: escape characters, formula neutralising on text columns only, quoted lists", () => {
    const backslash = csvWriter({ delimiter: ";", quote: "'", quoteEscape: "\\", quoteEscapeEscape: "\\" });
    expect(backslash(["it's", "a\\b", "plain", null])).toBe("'it\\'s';'a\\\\b';plain;\r\n");
    const neutralised = csvWriter(DEFAULT_CSV, { textColumns: [true, false], text: String });
    expect(neutralised(["=SUM(A1)", -5])).toBe("'=SUM(A1),-5\r\n");
    expect(neutralised([-5, "=x"])).toBe("-5,=x\r\n");
    expect(quotedListWriter({ delimiter: ";", quote: "'", quoteEscape: "'", quoteEscapeEscape: "'" })(["a", "b'c", null])).toBe("'a';'b''c';''");
  });
});

describe("byte sniffing", () => {
  it("names byte order marks, encodings and binary signatures", () => {
    expect(byteOrderMark(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ encoding: "UTF-8", length: 3 });
    expect(byteOrderMark(Uint8Array.from([0xff, 0xfe, 0x61, 0]))).toEqual({ encoding: "UTF-16LE", length: 2 });
    expect(byteOrderMark(Buffer.from("abc"))).toBeNull();
    expect(detectEncoding(Buffer.from("a;b\r\n", "utf16le"))).toEqual({ encoding: "UTF-16LE", bom: false });
    expect(detectEncoding(Uint8Array.from([0x61, 0x80, 0x62]))).toEqual({ encoding: "windows-1252", bom: false });
    expect(detectEncoding(Uint8Array.from([0x61, 0xe9, 0x62]))).toEqual({ encoding: "ISO-8859-1", bom: false });
    expect(binaryFormat(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14]))).toBe("zip");
    expect(binaryFormat(Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))).toBe("ole");
    expect(binaryFormat(Buffer.from("%PDF-1.7"))).toBe("pdf");
    expect(binaryFormat(Uint8Array.from([0x50, 0x4b]))).toBeNull();
    expect(binaryFormat(Buffer.from("a,b\n"))).toBeNull();
  });
});
