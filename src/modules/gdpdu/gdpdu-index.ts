import { XMLParser, XMLValidator } from "fast-xml-parser";

/**
 * The GDPdU description standard's index.xml (DTD gdpdu-01-08-2002): a DataSet of Media of
 * Tables, each a VariableLength (delimited) or FixedLength file with typed columns. This module
 * turns it into plain settings, with defaults from the DTD, or says clearly what is wrong.
 */
export class GdpduFormatError extends Error {}

export type ColumnType = "Numeric" | "AlphaNumeric" | "Date";

export interface GdpduColumn {
  name: string;
  description?: string;
  type: ColumnType;
  primaryKey: boolean;
  /** Numeric: digits after the decimal symbol when written; ImpliedAccuracy: digits without a symbol. */
  accuracy?: number;
  impliedAccuracy?: number;
  /** Date: e.g. DD.MM.YYYY (default). */
  dateFormat?: string;
  maps: Array<{ from: string; to: string }>;
  /** FixedLength: 1-based start and length in characters. */
  fixed?: { from: number; length: number };
}

export interface GdpduTable {
  url: string;
  name: string;
  description?: string;
  /** iconv-lite encoding name. */
  encoding: string;
  decimalSymbol: string;
  digitGroupingSymbol: string;
  skipNumBytes: number;
  /** Records to read, 1-based and inclusive. */
  range: { from: number; to?: number };
  epoch: number;
  layout:
    | { kind: "variable"; columnDelimiter: string; recordDelimiter: string | null; textEncapsulator: string | null }
    | { kind: "fixed"; recordLength: number | null; recordDelimiter: string | null };
  columns: GdpduColumn[];
}

const ENCODINGS: Record<string, string> = {
  ANSI: "windows-1252",
  Macintosh: "macintosh",
  OEM: "cp850",
  UTF16: "utf-16le",
  UTF7: "utf-7",
  UTF8: "utf-8",
};

const REPEATED = new Set(["Media", "Table", "VariableColumn", "VariablePrimaryKey", "FixedColumn", "FixedPrimaryKey", "ForeignKey", "Map", "Command"]);

type Node = Record<string, unknown>;

/** XML character references the parser leaves alone (&#9; &#13;&#10; are usual delimiters). */
function decodeReferences(text: string): string {
  return text.replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))).replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)));
}

function text(node: Node, key: string): string | undefined {
  const value = node[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object") {
    const inner = (value as Node)["#text"];
    return inner === undefined ? "" : decodeReferences(String(inner));
  }
  return decodeReferences(String(value));
}

function integer(node: Node, key: string, where: string): number | undefined {
  const raw = text(node, key)?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw)) throw new GdpduFormatError(`${where}: ${key} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function has(node: Node, key: string): boolean {
  return node[key] !== undefined;
}

function child(node: Node, key: string): Node | undefined {
  const value = node[key];
  return value !== null && typeof value === "object" ? (value as Node) : value === "" ? {} : undefined;
}

function list(node: Node, key: string): Node[] {
  const value = node[key];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => (item !== null && typeof item === "object" ? (item as Node) : {}));
}

function parseColumn(node: Node, primaryKey: boolean, fixed: boolean, where: string): GdpduColumn {
  const name = text(node, "Name")?.trim();
  if (!name) throw new GdpduFormatError(`${where}: a column has no Name`);
  const at = `${where}, column "${name}"`;
  let type: ColumnType;
  const column: GdpduColumn = { name, description: text(node, "Description")?.trim() || undefined, type: "AlphaNumeric", primaryKey, maps: [] };
  if (has(node, "Numeric")) {
    type = "Numeric";
    const numeric = child(node, "Numeric") ?? {};
    column.accuracy = integer(numeric, "Accuracy", at);
    column.impliedAccuracy = integer(numeric, "ImpliedAccuracy", at);
  } else if (has(node, "Date")) {
    type = "Date";
    column.dateFormat = text(child(node, "Date") ?? {}, "Format")?.trim() || "DD.MM.YYYY";
  } else if (has(node, "AlphaNumeric")) {
    type = "AlphaNumeric";
  } else {
    throw new GdpduFormatError(`${at}: the type is missing (Numeric, AlphaNumeric or Date)`);
  }
  column.type = type;
  column.maps = list(node, "Map").map((map) => ({ from: text(map, "From") ?? "", to: text(map, "To") ?? "" }));
  if (fixed) {
    const range = child(node, "FixedRange");
    if (!range) throw new GdpduFormatError(`${at}: a FixedLength column needs a FixedRange`);
    const from = integer(range, "From", at);
    const to = integer(range, "To", at);
    const length = integer(range, "Length", at);
    if (!from) throw new GdpduFormatError(`${at}: FixedRange needs From (1 or more)`);
    const size = length ?? (to !== undefined ? to - from + 1 : undefined);
    if (!size || size < 1) throw new GdpduFormatError(`${at}: FixedRange needs To (not before From) or Length`);
    column.fixed = { from, length: size };
  }
  return column;
}

function parseTable(node: Node, mediaName: string): GdpduTable {
  const url = text(node, "URL")?.trim();
  if (!url) throw new GdpduFormatError(`Media "${mediaName}": a Table has no URL`);
  const name = text(node, "Name")?.trim() || url;
  const where = `Table "${name}"`;
  const encodingKey = Object.keys(ENCODINGS).find((key) => has(node, key)) ?? "ANSI";
  const range = child(node, "Range");
  const from = range ? integer(range, "From", `${where}, Range`) ?? 1 : 1;
  const to = range ? integer(range, "To", `${where}, Range`) : undefined;
  const length = range ? integer(range, "Length", `${where}, Range`) : undefined;
  const table: GdpduTable = {
    url,
    name,
    description: text(node, "Description")?.trim() || undefined,
    encoding: ENCODINGS[encodingKey],
    decimalSymbol: text(node, "DecimalSymbol") || ",",
    digitGroupingSymbol: text(node, "DigitGroupingSymbol") ?? ".",
    skipNumBytes: integer(node, "SkipNumBytes", where) ?? 0,
    range: { from: Math.max(1, from), to: to ?? (length !== undefined ? from + length - 1 : undefined) },
    epoch: integer(node, "Epoch", where) ?? 30,
    layout: { kind: "variable", columnDelimiter: ";", recordDelimiter: null, textEncapsulator: '"' },
    columns: [],
  };
  const variable = child(node, "VariableLength");
  const fixed = child(node, "FixedLength");
  if (variable) {
    table.layout = {
      kind: "variable",
      columnDelimiter: text(variable, "ColumnDelimiter") || ";",
      recordDelimiter: text(variable, "RecordDelimiter") || null,
      textEncapsulator: has(variable, "TextEncapsulator") ? text(variable, "TextEncapsulator") || null : '"',
    };
    table.columns = [...list(variable, "VariablePrimaryKey").map((c) => parseColumn(c, true, false, where)), ...list(variable, "VariableColumn").map((c) => parseColumn(c, false, false, where))];
  } else if (fixed) {
    table.layout = { kind: "fixed", recordLength: integer(fixed, "Length", where) ?? null, recordDelimiter: text(fixed, "RecordDelimiter") || null };
    table.columns = [...list(fixed, "FixedPrimaryKey").map((c) => parseColumn(c, true, true, where)), ...list(fixed, "FixedColumn").map((c) => parseColumn(c, false, true, where))];
  } else {
    throw new GdpduFormatError(`${where}: neither VariableLength nor FixedLength describes the file ${url}`);
  }
  if (table.columns.length === 0) throw new GdpduFormatError(`${where}: no columns are declared`);
  const names = new Set<string>();
  for (const column of table.columns) {
    if (names.has(column.name)) throw new GdpduFormatError(`${where}: the column name "${column.name}" appears twice`);
    names.add(column.name);
  }
  return table;
}

/** A GDPdU index nests about six elements deep; the XML reader recurses, so depth is bounded first. */
const MAX_XML_DEPTH = 64;

function checkDepth(xml: string): void {
  let depth = 0;
  for (const tag of xml.matchAll(/<([!?/]?)[^>]*?(\/?)>/g)) {
    if (tag[1] === "!" || tag[1] === "?" || tag[2] === "/") continue;
    if (tag[1] === "/") depth--;
    else if (++depth > MAX_XML_DEPTH) throw new GdpduFormatError(`index.xml nests elements more than ${MAX_XML_DEPTH} deep`);
  }
}

/** Parses and checks index.xml; throws GdpduFormatError naming the problem. */
export function parseGdpduIndex(xml: string): GdpduTable[] {
  checkDepth(xml);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new GdpduFormatError(`index.xml is not well-formed XML (line ${valid.err.line}): ${valid.err.msg}`);
  const parser = new XMLParser({ ignoreAttributes: true, trimValues: false, parseTagValue: false, isArray: (name) => REPEATED.has(name) });
  const document = parser.parse(xml) as Node;
  const dataSet = child(document, "DataSet");
  if (!dataSet) throw new GdpduFormatError("index.xml has no DataSet element: it is not a GDPdU index");
  const media = list(dataSet, "Media");
  if (media.length === 0) throw new GdpduFormatError("index.xml declares no Media");
  const tables = media.flatMap((m) => {
    const mediaName = text(m, "Name")?.trim() ?? "";
    const mediaTables = list(m, "Table");
    if (mediaTables.length === 0) throw new GdpduFormatError(`Media "${mediaName}" declares no Table`);
    return mediaTables.map((t) => parseTable(t, mediaName));
  });
  return tables;
}
