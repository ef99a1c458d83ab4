import iconv from "iconv-lite";

/**
 * Bytes to text in `encoding` (any iconv-lite name; UTF-8 by default), streaming, with a leading
 * byte order mark removed.
 */
export async function* decodeText(source: AsyncIterable<Buffer | Uint8Array>, encoding = "utf-8"): AsyncGenerator<string> {
  const decoder = iconv.getDecoder(encoding, { stripBOM: true });
  for await (const chunk of source) {
    const text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}
