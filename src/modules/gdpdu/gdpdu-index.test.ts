import { describe, expect, it } from "vitest";
import { GdpduFormatError, parseGdpduIndex, type GdpduColumn, type GdpduTable } from "./gdpdu-index.js";
import { convertDate, convertNumeric } from "./gdpdu-values.js";

const table = (xml: string) => `<DataSet><Version>1</Version><Media><Name>M</Name><Table>${xml}</Table></Media></DataSet>`;

describe("index.xml", () => {
  it("applies the DTD's defaults: ANSI, decimal comma, semicolon, quote, every record", () => {
    const [parsed] = parseGdpduIndex(table("<URL>a.csv</URL><VariableLength><VariableColumn><Name>A</Name><AlphaNumeric/></VariableColumn></VariableLength>"));
    expect(parsed).toMatchObject({ url: "a.csv", name: "a.csv", encoding: "windows-1252", decimalSymbol: ",", digitGroupingSymbol: ".", skipNumBytes: 0, range: { from: 1 }, epoch: 30 });
    expect(parsed.layout).toEqual({ kind: "variable", columnDelimiter: ";", recordDelimiter: null, textEncapsulator: '"' });
  });

  it("names what is wrong", () => {
    const cases: Array<[string, RegExp]> = [
      ["<Other/>", /no DataSet element/],
      ["<DataSet><Version>1</Version></DataSet>", /declares no Media/],
      [table("<Name>T</Name><VariableLength><VariableColumn><Name>A</Name><AlphaNumeric/></VariableColumn></VariableLength>"), /a Table has no URL/],
      [table("<URL>a</URL><Name>T</Name><VariableLength><VariableColumn><Name>A</Name></VariableColumn></VariableLength>"), /Table "T", column "A": the type is missing/],
      [table("<URL>a</URL><Name>T</Name><FixedLength><FixedColumn><Name>A</Name><AlphaNumeric/></FixedColumn></FixedLength>"), /needs a FixedRange/],
      [table("<URL>a</URL><Name>T</Name></Table><Table><URL>b</URL><VariableLength><VariableColumn><Name>A</Name><AlphaNumeric/></VariableColumn></VariableLength>"), /Table "T": neither VariableLength nor FixedLength/],
      [table("<URL>a</URL><Name>T</Name><VariableLength><VariableColumn><Name>A</Name><AlphaNumeric/></VariableColumn><VariableColumn><Name>A</Name><Numeric/></VariableColumn></VariableLength>"), /"A" appears twice/],
      [table("<URL>a</URL><SkipNumBytes>x</SkipNumBytes><VariableLength><VariableColumn><Name>A</Name><AlphaNumeric/></VariableColumn></VariableLength>"), /SkipNumBytes must be a whole number/],
    ];
    for (const [xml, message] of cases) {
      expect(() => parseGdpduIndex(xml), xml).toThrow(GdpduFormatError);
      expect(() => parseGdpduIndex(xml), xml).toThrow(message);
    }
  });
});

describe("value conversion", () => {
  const base = { decimalSymbol: ",", digitGroupingSymbol: ".", epoch: 30 } as GdpduTable;
  const numeric = (raw: string, extra: Partial<GdpduColumn> = {}, t = base) => convertNumeric(raw, t, { name: "n", type: "Numeric", primaryKey: false, maps: [], ...extra });
  const date = (raw: string, format: string) => convertDate(raw, base, { name: "d", type: "Date", primaryKey: false, maps: [], dateFormat: format });

  it("normalises numbers: grouping, decimal symbol, signs, implied decimals", () => {
    expect(numeric("1.234.567,89")).toBe("1234567.89");
    expect(numeric("-0,50")).toBe("-0.50");
    expect(numeric("12,00-")).toBe("-12.00");
    expect(numeric("+7")).toBe("7");
    expect(numeric("0005", { impliedAccuracy: 2 })).toBe("0.05");
    expect(numeric("12345", { impliedAccuracy: 2 })).toBe("123.45");
    expect(numeric("1,234.5", {}, { ...base, decimalSymbol: ".", digitGroupingSymbol: "," })).toBe("1234.5");
    expect(numeric("n/a")).toBe("n/a");
    expect(numeric("")).toBe("");
  });

  it("turns dates into ISO 8601 by their format, with the Y2K epoch for two-digit years", () => {
    expect(date("1.2.2024", "DD.MM.YYYY")).toBe("2024-02-01");
    expect(date("20240131", "YYYYMMDD")).toBe("2024-01-31");
    expect(date("31.12.29", "DD.MM.YY")).toBe("2029-12-31");
    expect(date("31.12.30", "DD.MM.YY")).toBe("1930-12-31");
    expect(date("01.02.2024 13:05:09", "DD.MM.YYYY hh:mm:ss")).toBe("2024-02-01T13:05:09");
    expect(date("31.13.2024", "DD.MM.YYYY")).toBe("31.13.2024");
  });
});
