import { afterAll, describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { FixtureDir, UTF8_BOM } from "../../../test/ingestion/fixtures.js";
import { detectEncoding, isValidUtf8, utf8Chunks, Utf8Validator } from "./encoding.js";
import { detectDelimiter, detectHeaderRow, detectQuote, sampleRecords } from "./sniff.js";
import { CsvTokenizer, recordTexts } from "./tokenizer.js";

const dir = new FixtureDir();
afterAll(() => dir.remove());

function tokenize(text: string, chunkSizes: number[] = [], delimiter = ",", quote = '"'): string[][] {
  const bytes = new TextEncoder().encode(text);
  const tokenizer = new CsvTokenizer({ delimiter: delimiter.charCodeAt(0), quote: quote.charCodeAt(0) });
  const out: string[][] = [];
  const take = (r: Parameters<Parameters<CsvTokenizer["push"]>[1]>[0]) => out.push(recordTexts(r));
  let at = 0;
  for (const size of chunkSizes) {
    tokenizer.push(bytes.subarray(at, at + size), take);
    at += size;
  }
  tokenizer.push(bytes.subarray(at), take);
  tokenizer.end(take);
  return out;
}

describe("CSV tokenizer", () => {
  const tricky = 'a,"b ""quoted"", with comma","multi\nline"\r\n"",x,\r\nlast,"tail"stray,€uro\rlone-cr,2';
  const expected = [
    ["a", 'b "quoted", with comma', "multi\nline"],
    ["", "x", ""],
    ["last", "tailstray", "€uro"],
    ["lone-cr", "2"],
  ];

  it("handles quotes, doubled quotes, embedded line breaks, CRLF, lone CR and stray text after a quote", () => {
    expect(tokenize(tricky)).toEqual(expected);
  });

  it("gives the same records whatever the chunk boundaries (every split point)", () => {
    const length = new TextEncoder().encode(tricky).length;
    for (let split = 1; split < length; split++) expect(tokenize(tricky, [split]), `split at ${split}`).toEqual(expected);
    expect(tokenize(tricky, Array(length).fill(1))).toEqual(expected);
  });

  it("completes a record cut by a chunk end from a window of the next chunk, even past 64 KiB and at a CR ending the window", () => {
    const long = `"${'x""y\n'.repeat(40_000)}"`; // 280 KB, quoted, with doubled quotes and line breaks
    const rows = ["id,text,n", `1,${long},2`, "3,short,4", `5,${"z".repeat(70_000)},6`, "7,end,8"];
    const text = `${rows.join("\r\n")}\r\n`;
    const whole = tokenize(text);
    expect(whole.length).toBe(5);
    expect(whole[1][1]).toBe('x"y\n'.repeat(40_000));
    for (const first of [10, 5_000, 100_000, 290_000]) {
      for (const size of [70_000, 200_000, 1 << 20]) {
        const sizes = Array.from({ length: Math.ceil(text.length / size) }, () => size);
        expect(tokenize(text, [first, ...sizes]), `first ${first}, then ${size}`).toEqual(whole);
      }
    }
    // The record cut by the first chunk ends with CR as the 64 KiB window's last byte; LF follows it.
    const cr = `a,${"b".repeat(65_543)}\r\nc,d\r\n`; // CR at 65,545: the 65,536th byte of the second chunk
    expect(tokenize(cr, [10, 100_000])).toEqual(tokenize(cr));
    expect(tokenize(cr, [10, 100_000]).length).toBe(2);
  });

  it("numbers records, keeps blank lines as records and accepts a missing final line break", () => {
    const bytes = new TextEncoder().encode("h1,h2\n\nv1,v2");
    const tokenizer = new CsvTokenizer({ delimiter: 44, quote: 34 });
    const seen: [number, string[]][] = [];
    tokenizer.push(bytes, (r) => seen.push([r.index, recordTexts(r)]));
    tokenizer.end((r) => seen.push([r.index, recordTexts(r)]));
    expect(seen).toEqual([
      [0, ["h1", "h2"]],
      [1, [""]],
      [2, ["v1", "v2"]],
    ]);
  });

  it("refuses a record that never ends (unterminated quote) beyond the size limit", () => {
    const tokenizer = new CsvTokenizer({ delimiter: 44, quote: 34, maxRecordBytes: 1000 });
    const chunk = new TextEncoder().encode(`"${"x".repeat(600)}`);
    tokenizer.push(chunk, () => undefined);
    expect(() => tokenizer.push(chunk, () => undefined)).toThrow(/longer than 1000 bytes/);
  });
});

describe("encoding detection and transcoding", () => {
  const text = "Compte;Libellé;Débit\n411000;Société Générale;1234,56\n";

  it("recognises BOMs, UTF-16 without BOM, UTF-8, Windows-1252 and ISO-8859-1", () => {
    expect(detectEncoding(Buffer.concat([UTF8_BOM, Buffer.from(text)]))).toEqual({ encoding: "UTF-8", bom: true });
    expect(detectEncoding(Buffer.from(text))).toEqual({ encoding: "UTF-8", bom: false });
    expect(detectEncoding(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, "utf16le")]))).toEqual({ encoding: "UTF-16LE", bom: true });
    expect(detectEncoding(Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, "utf16be")]))).toEqual({ encoding: "UTF-16BE", bom: true });
    expect(detectEncoding(iconv.encode(text, "utf16le"))).toEqual({ encoding: "UTF-16LE", bom: false });
    expect(detectEncoding(iconv.encode(`${text}“quoted” – €`, "win1252"))).toEqual({ encoding: "windows-1252", bom: false });
    expect(detectEncoding(iconv.encode(text, "latin1"))).toEqual({ encoding: "ISO-8859-1", bom: false });
  });

  it("does not hold a multi-byte character cut by the end of the sample against UTF-8", () => {
    const bytes = Buffer.from("abc €");
    expect(isValidUtf8(bytes.subarray(0, bytes.length - 1))).toBe(true);
    expect(isValidUtf8(Buffer.from([0x61, 0xc3, 0x28]))).toBe(false);
    expect(isValidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(false); // surrogate
  });

  it("streams every encoding as UTF-8 without BOM, in small chunks", async () => {
    const cases: [string, Buffer][] = [
      ["utf8-bom.csv", Buffer.concat([UTF8_BOM, Buffer.from(text)])],
      ["utf16le.csv", Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, "utf16le")])],
      ["utf16be.csv", Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, "utf16be")])],
      ["win1252.csv", iconv.encode(text, "win1252")],
    ];
    for (const [name, content] of cases) {
      const file = dir.write(name, content);
      const info = detectEncoding(content);
      const chunks: Buffer[] = [];
      for await (const chunk of utf8Chunks(file, info, 7)) chunks.push(Buffer.from(chunk));
      expect(Buffer.concat(chunks).toString("utf8"), name).toBe(text);
    }
  });

  it("counts invalid UTF-8 sequences across chunk boundaries", () => {
    const validator = new Utf8Validator();
    const euro = Buffer.from("€"); // e2 82 ac, split across chunks: valid
    validator.check(Buffer.concat([Buffer.from("ab"), euro.subarray(0, 1)]));
    validator.check(Buffer.concat([euro.subarray(1), Buffer.from([0x61, 0xff, 0x62])]));
    validator.end();
    expect(validator.invalid).toBe(1);
  });
});

describe("delimiter, quote and header row detection", () => {
  const sample = (text: string) => new TextEncoder().encode(text);

  it("picks the delimiter that splits rows consistently, past report title lines", () => {
    expect(detectDelimiter(sample("a,b,c\n1,2,3\n4,5,6\n"), true)).toBe(",");
    expect(detectDelimiter(sample("Datum;Konto;Betrag\n01.02.2023;1200;1.234,56\n02.02.2023;1400;99,00\n"), true)).toBe(";");
    expect(detectDelimiter(sample("a\tb\tc\n1\t2,5\t3\n"), true)).toBe("\t");
    expect(detectDelimiter(sample("Journal\nCompany\n\nDate|Account|Amount\n1/2/23|100|5.00\n1/3/23|200|6.00\n"), true)).toBe("|");
  });

  it("reads a sample again after trying other delimiters on it (every field quoted, as Sage 50 exports)", () => {
    const quoted = sample('"N/C","Name"\r\n"0010","Freehold Property"\r\n"1200","Bank Current Account"\r\n');
    expect(detectDelimiter(quoted, true)).toBe(",");
    expect(sampleRecords(quoted, ",", '"', 10, true)).toEqual([
      ["N/C", "Name"],
      ["0010", "Freehold Property"],
      ["1200", "Bank Current Account"],
    ]);
  });

  it("reads a sample in pieces as in one piece, stopping at the records asked for", () => {
    // Records across the pieces' ends (16, 32, 64 KiB ...): quoted fields with line breaks and
    // doubled quotes, CRLF and lone CR line ends, a 40 KiB value, blank lines, no final line end.
    const rows: string[] = [];
    for (let i = 0, length = 0; length < 300_000; i++) {
      const end = i % 7 === 0 ? "\r\n" : i % 11 === 0 ? "\r" : "\n";
      const memo = i % 5 === 0 ? `"memo ""${i}""\nsecond line"` : i === 40 ? `"${"x".repeat(40_000)}"` : `memo ${i}`;
      rows.push(`${i},${memo},${i % 3 === 0 ? "" : "12.5"}${end}${i % 13 === 0 ? "\n" : ""}`);
      length += rows.at(-1)!.length;
    }
    const bytes = new TextEncoder().encode(rows.join("") + "last,row");
    const whole = (max: number, complete: boolean) => {
      const tokenizer = new CsvTokenizer({ delimiter: 44, quote: 34 });
      const out: string[][] = [];
      const take = (r: Parameters<Parameters<CsvTokenizer["push"]>[1]>[0]) => {
        if (out.length < max) out.push(recordTexts(r));
      };
      tokenizer.push(bytes.slice(), take);
      if (complete) tokenizer.end(take);
      return out;
    };
    for (const max of [1, 100, 300, 2000, 100_000]) {
      for (const complete of [false, true]) expect(sampleRecords(bytes, ",", '"', max, complete)).toEqual(whole(max, complete));
    }
    expect(sampleRecords(bytes, ",", '"', 100_000, true).at(-1)).toEqual(["last", "row"]);
  });

  it("detects single-quote quoting only when double quotes are absent", () => {
    expect(detectQuote("'a','b'\n'c','d'\n'e','f'\n", ",")).toBe("'");
    expect(detectQuote('"a",b\n', ",")).toBe('"');
  });

  it("finds the header row below report title lines, and no header above data rows", () => {
    const report = sampleRecords(sample("Journal\nCompany Inc\n\"January 1 - December 31, 2023\"\n\n,Date,Num,Account,Debit,Credit\n,01/03/2023,1001,Sales,$5.00,\n"), ",", '"', 50, true);
    expect(detectHeaderRow(report).headerRowIndex).toBe(4);
    const plain = sampleRecords(sample("JE,Date,Amount\nJE1,01/02/2023,5.00\nJE2,01/03/2023,6.00\n"), ",", '"', 50, true);
    expect(detectHeaderRow(plain).headerRowIndex).toBe(0);
    const headerless = sampleRecords(sample("1001,2023-01-05,10100,250.00\n1002,2023-02-01,60100,80.00\n"), ",", '"', 50, true);
    expect(detectHeaderRow(headerless).headerRowIndex).toBeNull();
  });
});
