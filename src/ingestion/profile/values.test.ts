import { describe, expect, it } from "vitest";
import { classifyText } from "./classify.js";
import { DateShape, dateFormatOf, ordersOf, parseDateText, ORDER_DMY, ORDER_MDY, ORDER_YMD } from "./date-shape.js";
import { DistinctCounter } from "./distinct.js";
import { NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT, parseAmountText } from "./number-shape.js";

describe("amounts", () => {
  it.each([
    ["1234.56", 123456, null],
    ["1,234.56", 123456, null],
    ["1.234,56", null, 123456],
    ["1 234,56", null, 123456],
    ["1\u00a0234,56", null, 123456],
    ["1'234.56", 123456, null],
    ["-45.5", -4550, null],
    ["-45,5", null, -4550],
    ["(1,234.56)", -123456, null],
    ["1,234.56-", -123456, null],
    ["$1,250.00", 125000, null],
    ["-$99.95", -9995, null],
    ["($99.95)", -9995, null],
    ["€ 12,50", null, 1250],
    ["12,50 €", null, 1250],
    ["USD 1,000.00", 100000, null],
    ["100.00 CR", -10000, null],
    ["100.00 DR", 10000, null],
    ["1.5E+03", 150000, null],
    [".5", 50, null],
    ["0.125", 13, null],
    ["42", 4200, 4200],
  ])("%s reads as %s (decimal point) and %s (decimal comma)", (text, dot, comma) => {
    expect(parseAmountText(text, NUMBER_FORMAT_DOT)).toBe(dot);
    expect(parseAmountText(text, NUMBER_FORMAT_COMMA)).toBe(comma);
  });

  it("reads 1,234 and 1.234 both ways (ambiguous), and refuses what is not an amount", () => {
    expect([parseAmountText("1,234", NUMBER_FORMAT_DOT), parseAmountText("1,234", NUMBER_FORMAT_COMMA)]).toEqual([123400, 123]);
    expect([parseAmountText("1.234", NUMBER_FORMAT_DOT), parseAmountText("1.234", NUMBER_FORMAT_COMMA)]).toEqual([123, 123400]);
    for (const text of ["", "-", "abc", "12,34,5", "1.2.3", "01/02/2023", "10-20", "(12", "Invoice 44"]) {
      expect(parseAmountText(text, NUMBER_FORMAT_DOT), text).toBeNull();
      expect(parseAmountText(text, NUMBER_FORMAT_COMMA), text).toBeNull();
    }
  });
});

describe("dates", () => {
  const shape = new DateShape();
  const parse = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return shape.parse(bytes, 0, bytes.length) ? { mask: shape.mask, formats: ordersOf(shape.mask).map((o) => dateFormatOf(shape.shape, o)) } : null;
  };

  it("tells which field orders a value is valid under", () => {
    expect(parse("01/15/2023")).toEqual({ mask: ORDER_MDY, formats: ["MM/dd/yyyy"] });
    expect(parse("15/01/2023")).toEqual({ mask: ORDER_DMY, formats: ["dd/MM/yyyy"] });
    expect(parse("03/04/2023")).toEqual({ mask: ORDER_MDY | ORDER_DMY, formats: ["MM/dd/yyyy", "dd/MM/yyyy"] });
    expect(parse("2023-06-13")).toEqual({ mask: ORDER_YMD, formats: ["yyyy-MM-dd"] });
    expect(parse("13.06.2023")).toEqual({ mask: ORDER_DMY, formats: ["dd.MM.yyyy"] });
    expect(parse("3/15/23")).toEqual({ mask: ORDER_MDY, formats: ["MM/dd/yy"] });
    expect(parse("10/11/12")).toEqual({ mask: ORDER_MDY | ORDER_DMY | ORDER_YMD, formats: ["MM/dd/yy", "dd/MM/yy", "yy/MM/dd"] });
    expect(parse("20230613")).toEqual({ mask: ORDER_YMD, formats: ["yyyyMMdd"] });
    expect(parse("13-Jun-2023")?.formats).toEqual(["dd-MMM-yyyy"]);
    expect(parse("Sept 3, 2023")?.formats).toEqual(["MMM dd, yyyy"]);
    expect(parse("2023-06-13T10:15:00Z")?.formats).toEqual(["yyyy-MM-dd'T'HH:mm:ss"]);
    expect(parse("06/13/2023 10:15 PM")?.formats).toEqual(["MM/dd/yyyy HH:mm:ss"]);
  });

  it("checks the calendar and refuses non-dates", () => {
    for (const text of ["02/30/2023", "02/29/2023", "13/13/2023", "2023-13-01", "1234", "Total", "12/2023", "06/13/2023 25:00", "Juneteenth 2023"]) {
      expect(parse(text), text).toBeNull();
    }
    expect(parse("02/29/2024")).not.toBeNull();
  });

  it("reads values under a chosen format, two-digit years as PostgreSQL does", () => {
    expect(parseDateText("03/04/2023", "dd/MM/yyyy")).toBe("2023-04-03");
    expect(parseDateText("03/04/2023", "MM/dd/yyyy")).toBe("2023-03-04");
    expect(parseDateText("10/11/12", "yy/MM/dd")).toBe("2010-11-12");
    expect(parseDateText("1/2/99", "MM/dd/yy")).toBe("1999-01-02");
    expect(parseDateText("13/01/2023", "MM/dd/yyyy")).toBeNull();
  });

  it("classifies text for headers and degroupers", () => {
    expect(["Date", "$1.00", "01/02/2023", "  ", "10100"].map(classifyText)).toEqual(["TEXT", "NUMBER", "DATE", "BLANK", "NUMBER"]);
  });
});

describe("distinct counting", () => {
  it("is exact for small sets and within a few percent for large ones, in bounded memory", () => {
    const small = new DistinctCounter();
    for (let i = 0; i < 5000; i++) small.add(Math.imul(i % 1234, 0x9e3779b1));
    expect(small.count()).toBe(1234);
    expect(small.approximate).toBe(false);
    const large = new DistinctCounter(1000);
    for (let i = 0; i < 300_000; i++) large.add(Math.imul(i, 0x9e3779b1) ^ (i >>> 7));
    expect(large.approximate).toBe(true);
    expect(Math.abs(large.count() - 300_000) / 300_000).toBeLessThan(0.05);
  });
});
