import { Transform, type Readable } from "node:stream";
import { decodeText } from "../../tabular/decode.js";
import { DelimitedParser } from "../../tabular/delimited-reader.js";
import { GdpduFormatError, type GdpduTable } from "./gdpdu-index.js";
import { convertValue } from "./gdpdu-values.js";

/** Drops the first `count` bytes of a stream (SkipNumBytes). */
function skipBytes(count: number): Transform {
  let left = count;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (left >= chunk.length) {
        left -= chunk.length;
        callback();
      } else {
        const rest = chunk.subarray(left);
        left = 0;
        callback(null, rest);
      }
    },
  });
}

type Layout<K extends GdpduTable["layout"]["kind"]> = Extract<GdpduTable["layout"], { kind: K }>;

async function* variableRecords(text: AsyncIterable<string>, layout: Layout<"variable">): AsyncGenerator<string[]> {
  const parser = new DelimitedParser({ delimiter: layout.columnDelimiter, recordDelimiter: layout.recordDelimiter, quote: layout.textEncapsulator });
  for await (const chunk of text) yield* parser.push(chunk);
  yield* parser.push("", true);
}

async function* fixedRecords(text: AsyncIterable<string>, layout: Layout<"fixed">, columns: GdpduTable["columns"]): AsyncGenerator<string[]> {
  const { recordLength, recordDelimiter } = layout;
  const cut = (record: string) => columns.map((column) => record.substr(column.fixed!.from - 1, column.fixed!.length));
  let buffer = "";
  for await (const chunk of text) {
    buffer += chunk;
    if (recordLength && !recordDelimiter) {
      let start = 0;
      while (buffer.length - start >= recordLength) {
        yield cut(buffer.slice(start, start + recordLength));
        start += recordLength;
      }
      buffer = buffer.slice(start);
    } else {
      const separator = recordDelimiter ?? /\r\n|\n|\r/;
      const pieces = buffer.split(separator);
      buffer = pieces.pop() ?? "";
      // Fixed-length records are never empty: an empty piece is a blank line, or the "\n" of a
      // "\r\n" split across two chunks.
      for (const piece of pieces) if (piece !== "") yield cut(piece);
    }
  }
  if (buffer !== "") yield cut(buffer);
}

/**
 * The table's rows, decoded, cut into columns and converted: one array of CSV values per record
 * in the declared Range. Throws GdpduFormatError when a record does not match the declaration.
 */
export async function* readGdpduTable(bytes: Readable, table: GdpduTable): AsyncGenerator<string[]> {
  const source = table.skipNumBytes > 0 ? bytes.pipe(skipBytes(table.skipNumBytes)) : bytes;
  const text = decodeText(source, table.encoding);
  const records = table.layout.kind === "variable" ? variableRecords(text, table.layout) : fixedRecords(text, table.layout, table.columns);
  const width = table.columns.length;
  let number = 0;
  for await (const record of records) {
    number++;
    if (number < table.range.from) continue;
    if (table.range.to !== undefined && number > table.range.to) break;
    if (table.layout.kind === "variable") {
      if (record.length === 1 && record[0].trim() === "") continue; // blank line
      if (record.length === width + 1 && record[width] === "") record.pop(); // trailing delimiter
      if (record.length !== width) {
        throw new GdpduFormatError(`Table "${table.name}" (${table.url}), record ${number}: ${record.length} field(s) where index.xml declares ${width} column(s)`);
      }
    }
    yield record.map((raw, index) => convertValue(raw, table, table.columns[index]));
  }
}
