import type { App } from "../../app-types.js";
import { decodeText } from "../../tabular/decode.js";
import { readDelimited } from "../../tabular/delimited-reader.js";
import { guessDelimiter } from "../../tabular/sniff.js";
import { fileObjectKey } from "../file-manager/file-manager.service.js";
import iconv from "iconv-lite";

export interface TabularLayout {
  encoding: string;
  delimiter: string;
  headerRowIndex: number;
}

async function firstLine(app: App, fileId: string): Promise<string> {
  let text = "";
  for await (const chunk of decodeText(app.storage.read(fileObjectKey(fileId), { start: 0, end: 64 * 1024 - 1 }))) {
    text += chunk;
    const end = text.search(/\r|\n/);
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

/**
 * How to read a file as a table: from its computed tabular file info (the ingestion engine's
 * inspector) when there is one, otherwise UTF-8, header in the first row, delimiter guessed.
 */
export async function tabularLayout(app: App, fileId: string): Promise<TabularLayout> {
  const file = await app.prisma.fileManagerEntity.findUnique({ where: { id: fileId }, select: { fileInfoId: true } });
  const info = file?.fileInfoId ? await app.prisma.fileInfo.findUnique({ where: { id: file.fileInfoId } }) : null;
  if (info?.type === "TABULAR_FILE_INFO" && info.delimiter) {
    const encoding = info.encoding && iconv.encodingExists(info.encoding) ? info.encoding : "utf-8";
    return { encoding, delimiter: info.delimiter, headerRowIndex: info.headerRowIndex ?? 0 };
  }
  // Stand-in until the file's info is computed: the delimiter most frequent in the first line.
  return { encoding: "utf-8", delimiter: guessDelimiter(await firstLine(app, fileId)), headerRowIndex: 0 };
}

/** The file's records (every row, header included), streamed. */
export function readRecords(app: App, fileId: string, layout: TabularLayout, onBytes?: (bytes: number) => void): AsyncGenerator<string[]> {
  const bytes = app.storage.read(fileObjectKey(fileId));
  if (onBytes) bytes.on("data", (chunk: Buffer) => onBytes(chunk.length));
  return readDelimited(decodeText(bytes, layout.encoding), { delimiter: layout.delimiter });
}

export function isBlankRecord(record: string[]): boolean {
  return record.every((field) => field.trim() === "");
}
