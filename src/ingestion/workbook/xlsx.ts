import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { openZip, resolveEntryPath, type ZipArchive } from "../../core/zip.js";
import { isDateFormat, renderNumber, renderSerialDate, type SheetReader, type WorkbookReader } from "./cells.js";

/**
 * A streaming reader of .xlsx workbooks (Office Open XML spreadsheets). The archive is read through
 * its central directory; small parts (workbook, relationships, styles) are read whole, shared
 * strings once into memory (each distinct string once), and a sheet's XML is inflated and scanned
 * chunk by chunk without building a document: one row of cells at a time reaches the caller.
 * Written against ECMA-376 part 1 (sheetData, c/@r/@t/@s, v, is, si, rPh, numFmt, cellXfs).
 */

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

async function readEntry(zip: ZipArchive, name: string): Promise<string | null> {
  const entry = zip.entries.find((e) => e.fileName === name || e.fileName.toLowerCase() === name.toLowerCase());
  if (!entry) return null;
  const stream = await zip.open(entry);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Attribute `name` of the first tag in `tag` (the text between < and >). */
function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return match ? decodeXml(match[2] ?? match[3] ?? "") : null;
}

function* tags(xml: string, name: string): Generator<string> {
  const re = new RegExp(`<(?:\\w+:)?${name}\\b([^>]*)>`, "g");
  for (let m = re.exec(xml); m; m = re.exec(xml)) yield m[1];
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** XML character references and entities, then Excel's _xHHHH_ escapes of control characters. */
export function decodeXml(text: string): string {
  let out = text.indexOf("&") < 0 ? text : text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref[0] === "#") return String.fromCodePoint(ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
  if (out.indexOf("_x") >= 0) out = out.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return out;
}

/** Text of the <t> elements of a string item (<si> or <is>), phonetic runs (<rPh>) left out. */
function itemText(xml: string, from: number, to: number): string {
  // The usual item, <si><t>text</t></si>: one slice.
  const simple = xml.indexOf("><t>", from);
  if (simple >= 0 && simple < to && xml.lastIndexOf("</t>", to) > simple) {
    const end = xml.indexOf("</t>", simple + 4);
    if (end >= 0 && end < to && xml.indexOf("<", simple + 4) === end && xml.indexOf("<t", end) >= to - 1 - 0) {
      const rest = xml.slice(end + 4, to);
      if (/^<\/(si|is)>$/.test(rest)) return decodeXml(xml.slice(simple + 4, end));
    }
  }
  let text = "";
  let at = from;
  while (true) {
    const open = xml.indexOf("<t", at);
    if (open < 0 || open >= to) break;
    const next = xml.charCodeAt(open + 2);
    // <t>, <t xml:space="preserve">; not <tr...> or other names starting with t.
    if (next !== 0x3e && next !== 0x20 && next !== 0x2f) {
      at = open + 2;
      continue;
    }
    const phonetic = xml.lastIndexOf("<rPh", open);
    if (phonetic >= from && xml.indexOf("</rPh>", phonetic) > open) {
      at = xml.indexOf("</rPh>", phonetic) + 6;
      continue;
    }
    const close = xml.indexOf(">", open);
    if (xml.charCodeAt(close - 1) === 0x2f) {
      at = close + 1;
      continue;
    }
    const end = xml.indexOf("</t>", close);
    if (end < 0 || end > to) break;
    text += xml.slice(close + 1, end);
    at = end + 4;
  }
  return decodeXml(text);
}

/** Calls `onPart` with complete `<name ...>...</name>` (or self-closed) elements as they stream in. */
async function streamElements(stream: Readable, name: string, onPart: (xml: string, from: number, to: number) => boolean | void, afterChunk?: () => Promise<void> | void): Promise<void> {
  const decoder = new TextDecoder("utf-8");
  const open = `<${name}`;
  const close = `</${name}>`;
  let buffer = "";
  let stopped = false;
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk as Buffer, { stream: true });
    let at = 0;
    while (true) {
      let start = buffer.indexOf(open, at);
      // <rowX ...> is another element: the name must end at a space, '>' or '/'.
      while (start >= 0) {
        const c = buffer.charCodeAt(start + open.length);
        if (c === 0x20 || c === 0x3e || c === 0x2f || c === 0x0a || c === 0x0d || c === 0x09 || Number.isNaN(c)) break;
        start = buffer.indexOf(open, start + 1);
      }
      if (start < 0) {
        at = Math.max(at, buffer.length - open.length);
        break;
      }
      const tagEnd = buffer.indexOf(">", start);
      if (tagEnd < 0) {
        at = start;
        break;
      }
      let end: number;
      if (buffer.charCodeAt(tagEnd - 1) === 0x2f) end = tagEnd + 1;
      else {
        const closing = buffer.indexOf(close, tagEnd);
        if (closing < 0) {
          at = start;
          break;
        }
        end = closing + close.length;
      }
      if (onPart(buffer, start, end) === false) {
        stopped = true;
        break;
      }
      at = end;
    }
    buffer = buffer.slice(at);
    if (stopped) break;
    if (afterChunk) await afterChunk();
  }
  if (stopped) stream.destroy();
}

function columnIndex(ref: string): number {
  let n = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 0x41 || c > 0x5a) break;
    n = n * 26 + (c - 0x40);
  }
  return n - 1;
}

interface Sheet {
  name: string;
  path: string;
}

/**
 * The shared strings of the last workbook read, for a minute: detection, shadow planning and
 * staging each open the file, and a million-row ledger's table takes seconds to parse.
 */
let lastStrings: { key: string; strings: string[]; timer: NodeJS.Timeout } | null = null;

async function sharedStringsOf(path: string, zip: ZipArchive): Promise<string[]> {
  const { size, mtimeMs } = await stat(path);
  const key = `${path}:${size}:${mtimeMs}`;
  if (lastStrings?.key === key) return lastStrings.strings;
  const strings = await readSharedStrings(zip);
  if (lastStrings) clearTimeout(lastStrings.timer);
  lastStrings = { key, strings, timer: setTimeout(() => (lastStrings = null), 60_000).unref() };
  return strings;
}

export async function openXlsx(path: string): Promise<WorkbookReader> {
  const zip = await openZip(path);
  try {
    const workbook = (await readEntry(zip, "xl/workbook.xml")) ?? "";
    const rels = (await readEntry(zip, "xl/_rels/workbook.xml.rels")) ?? "";
    const targets = new Map<string, string>();
    for (const tag of tags(rels, "Relationship")) {
      const id = attribute(tag, "Id");
      const target = attribute(tag, "Target");
      if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : resolveEntryPath("xl/workbook.xml", target));
    }
    const sheets: Sheet[] = [];
    for (const tag of tags(workbook, "sheet")) {
      const id = attribute(tag, "r:id") ?? [...tag.matchAll(/(\w+):id\s*=\s*"([^"]*)"/g)][0]?.[2] ?? null;
      const target = id ? targets.get(id) : undefined;
      if (target && zip.entries.some((e) => e.fileName === target)) sheets.push({ name: attribute(tag, "name") ?? `Sheet${sheets.length + 1}`, path: target });
    }
    const date1904 = [...tags(workbook, "workbookPr")].some((tag) => /^(1|true)$/.test(attribute(tag, "date1904") ?? ""));
    const dateStyles = await readDateStyles(zip);
    const strings = await sharedStringsOf(path, zip);
    return new XlsxReader(zip, sheets, dateStyles, strings, date1904);
  } catch (error) {
    zip.close();
    throw error;
  }
}

/** Which cell styles (indexes into cellXfs) show numbers as dates. */
async function readDateStyles(zip: ZipArchive): Promise<Uint8Array> {
  const styles = (await readEntry(zip, "xl/styles.xml")) ?? "";
  const custom = new Map<number, string>();
  for (const tag of tags(styles, "numFmt")) custom.set(Number(attribute(tag, "numFmtId")), attribute(tag, "formatCode") ?? "");
  const xfsStart = styles.indexOf("<cellXfs");
  const xfsEnd = styles.indexOf("</cellXfs>", xfsStart);
  const xfs = xfsStart >= 0 && xfsEnd > xfsStart ? styles.slice(xfsStart, xfsEnd) : "";
  const flags: number[] = [];
  for (const tag of tags(xfs, "xf")) {
    const id = Number(attribute(tag, "numFmtId") ?? 0);
    const code = custom.get(id);
    flags.push(code !== undefined ? (isDateFormat(code) ? 1 : 0) : BUILTIN_DATE_FORMATS.has(id) ? 1 : 0);
  }
  return Uint8Array.from(flags);
}

async function readSharedStrings(zip: ZipArchive): Promise<string[]> {
  const entry = zip.entries.find((e) => e.fileName.toLowerCase() === "xl/sharedstrings.xml");
  if (!entry) return [];
  const strings: string[] = [];
  await streamElements(await zip.open(entry), "si", (xml, from, to) => {
    strings.push(itemText(xml, from, to));
  });
  return strings;
}

class XlsxReader implements WorkbookReader {
  readonly kind = "XLSX" as const;
  readonly sheetNames: string[];

  constructor(
    private readonly zip: ZipArchive,
    private readonly sheets: Sheet[],
    private readonly dateStyles: Uint8Array,
    private readonly strings: string[],
    private readonly date1904: boolean,
  ) {
    this.sheetNames = sheets.map((s) => s.name);
  }

  async rows(sheet: number, onRow: SheetReader, afterChunk?: () => Promise<void> | void): Promise<void> {
    const entry = this.zip.entries.find((e) => e.fileName === this.sheets[sheet].path);
    if (!entry) return;
    const cells: string[] = [];
    let next = 0;
    await streamElements(
      await this.zip.open(entry),
      "row",
      (xml, from, to) => {
        const tagEnd = xml.indexOf(">", from);
        const r = attributeAt(xml, from, tagEnd, "r");
        const index = r !== null ? Number(r) - 1 : next;
        next = index + 1;
        cells.length = 0;
        if (xml.charCodeAt(tagEnd - 1) !== 0x2f) this.cells(xml, tagEnd + 1, to, cells);
        return onRow(index, cells);
      },
      afterChunk,
    );
  }

  /** The cells of one row's XML, rendered as text, at their column positions. */
  private cells(xml: string, from: number, to: number, out: string[]): void {
    let at = from;
    let column = 0;
    while (true) {
      let open = xml.indexOf("<c", at);
      while (open >= 0 && open < to) {
        const c = xml.charCodeAt(open + 2);
        if (c === 0x20 || c === 0x3e || c === 0x2f) break;
        open = xml.indexOf("<c", open + 2);
      }
      if (open < 0 || open >= to) return;
      const tagEnd = xml.indexOf(">", open);
      const selfClosed = xml.charCodeAt(tagEnd - 1) === 0x2f;
      const end = selfClosed ? tagEnd + 1 : xml.indexOf("</c>", tagEnd) + 4;
      const ref = attributeAt(xml, open, tagEnd, "r");
      if (ref !== null) column = columnIndex(ref);
      const type = attributeAt(xml, open, tagEnd, "t");
      const style = attributeAt(xml, open, tagEnd, "s");
      let text = "";
      if (!selfClosed) text = this.value(xml, tagEnd + 1, end - 4, type, style === null ? 0 : Number(style));
      while (out.length < column) out.push("");
      out[column] = text;
      column++;
      at = end;
    }
  }

  private value(xml: string, from: number, to: number, type: string | null, style: number): string {
    if (type === "inlineStr") {
      const is = xml.indexOf("<is", from);
      return is >= 0 && is < to ? itemText(xml, is, to) : "";
    }
    const v = xml.indexOf("<v", from);
    if (v < 0 || v >= to) return "";
    const vEnd = xml.indexOf(">", v);
    if (xml.charCodeAt(vEnd - 1) === 0x2f) return "";
    const raw = xml.slice(vEnd + 1, xml.indexOf("</v>", vEnd));
    switch (type) {
      case "s":
        return this.strings[Number(raw)] ?? "";
      case "str":
      case "e":
        return decodeXml(raw);
      case "b":
        return raw === "1" ? "TRUE" : "FALSE";
      case "d":
        return raw.endsWith("T00:00:00") || raw.endsWith("T00:00:00Z") ? raw.slice(0, 10) : raw.replace("T", " ").replace(/Z$|\.\d+$/g, "");
      default:
        if (this.dateStyles[style] === 1) return this.date(raw);
        return renderNumber(raw);
    }
  }

  /** Dates repeat on every line of a transaction: each serial is rendered once. */
  private readonly dates = new Map<string, string>();

  private date(raw: string): string {
    let text = this.dates.get(raw);
    if (text === undefined) {
      text = renderSerialDate(Number(raw), this.date1904) ?? raw;
      if (this.dates.size < 100_000) this.dates.set(raw, text);
    }
    return text;
  }

  close(): void {
    this.zip.close();
  }
}

/** An attribute of the tag xml[from, tagEnd) without a regular expression (the hot path). */
function attributeAt(xml: string, from: number, tagEnd: number, name: string): string | null {
  let at = from;
  while (true) {
    const found = xml.indexOf(name, at);
    if (found < 0 || found >= tagEnd) return null;
    const before = xml.charCodeAt(found - 1);
    let k = found + name.length;
    while (xml.charCodeAt(k) === 0x20) k++;
    if ((before === 0x20 || before === 0x0a || before === 0x09 || before === 0x0d) && xml.charCodeAt(k) === 0x3d) {
      k++;
      while (xml.charCodeAt(k) === 0x20) k++;
      const quote = xml.charCodeAt(k);
      const end = xml.indexOf(String.fromCharCode(quote), k + 1);
      return xml.slice(k + 1, end);
    }
    at = found + name.length;
  }
}
