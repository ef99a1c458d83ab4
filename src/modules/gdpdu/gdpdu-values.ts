import type { GdpduColumn, GdpduTable } from "./gdpdu-index.js";

/**
 * Values as written in the archive to plain CSV values: numbers with "." as decimal point and no
 * digit grouping, dates as ISO 8601. A value that does not fit its declared type is kept as is
 * rather than guessed at.
 */
export function convertNumeric(raw: string, table: GdpduTable, column: GdpduColumn): string {
  let value = raw.trim();
  if (value === "") return "";
  let negative = false;
  if (value.endsWith("-")) (negative = true), (value = value.slice(0, -1).trim());
  if (value.startsWith("-")) (negative = !negative), (value = value.slice(1).trim());
  else if (value.startsWith("+")) value = value.slice(1).trim();
  const grouping = table.digitGroupingSymbol;
  if (grouping && grouping !== table.decimalSymbol) value = value.split(grouping).join("");
  const hasDecimal = value.includes(table.decimalSymbol);
  if (hasDecimal) value = value.replace(table.decimalSymbol, ".");
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value)) return raw;
  if (!hasDecimal && column.impliedAccuracy) {
    const digits = value.padStart(column.impliedAccuracy + 1, "0");
    value = `${digits.slice(0, -column.impliedAccuracy)}.${digits.slice(-column.impliedAccuracy)}`;
  }
  value = value.replace(/^0+(?=\d)/, "");
  if (value.startsWith(".")) value = `0${value}`;
  if (value.endsWith(".")) value = value.slice(0, -1);
  const isZero = /^0(\.0*)?$/.test(value);
  return negative && !isZero ? `-${value}` : value;
}

const dateFormats = new Map<string, { regex: RegExp; order: string[] } | null>();

function compileDateFormat(format: string) {
  if (dateFormats.has(format)) return dateFormats.get(format)!;
  const separated = /[^A-Za-z]/.test(format);
  const order: string[] = [];
  let pattern = "";
  for (let i = 0; i < format.length; ) {
    const rest = format.slice(i);
    const token = ["YYYY", "YY", "MM", "DD", "hh", "mm", "ss"].find((t) => rest.startsWith(t));
    if (token) {
      order.push(token);
      pattern += token === "YYYY" ? "(\\d{4})" : separated ? "(\\d{1,2})" : "(\\d{2})";
      i += token.length;
    } else {
      pattern += format[i].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      i++;
    }
  }
  const compiled = order.length > 0 ? { regex: new RegExp(`^${pattern}$`), order } : null;
  dateFormats.set(format, compiled);
  return compiled;
}

export function convertDate(raw: string, table: GdpduTable, column: GdpduColumn): string {
  const value = raw.trim();
  if (value === "") return "";
  const format = compileDateFormat(column.dateFormat ?? "DD.MM.YYYY");
  const match = format?.regex.exec(value);
  if (!format || !match) return raw;
  const parts: Record<string, number> = {};
  format.order.forEach((token, index) => (parts[token] = Number(match[index + 1])));
  let year = parts.YYYY;
  if (year === undefined && parts.YY !== undefined) year = parts.YY < table.epoch ? 2000 + parts.YY : 1900 + parts.YY;
  const month = parts.MM;
  const day = parts.DD;
  if (year === undefined || !month || !day || month > 12 || day > 31) return raw;
  const pad = (n: number) => String(n).padStart(2, "0");
  const date = `${String(year).padStart(4, "0")}-${pad(month)}-${pad(day)}`;
  if (parts.hh === undefined) return date;
  return `${date}T${pad(parts.hh)}:${pad(parts.mm ?? 0)}:${pad(parts.ss ?? 0)}`;
}

export function convertValue(raw: string, table: GdpduTable, column: GdpduColumn): string {
  const mapped = column.maps.find((map) => map.from === raw);
  if (mapped) return mapped.to;
  if (column.type === "Numeric") return convertNumeric(raw, table, column);
  if (column.type === "Date") return convertDate(raw, table, column);
  return column.fixed ? raw.trimEnd() : raw;
}
