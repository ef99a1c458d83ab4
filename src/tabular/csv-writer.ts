/** One CSV field (RFC 4180): quoted when it holds the delimiter, a quote or a line break. */
export function csvField(value: unknown, delimiter = ","): string {
  let text: string;
  if (value === null || value === undefined) return "";
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") text = String(value);
  else text = JSON.stringify(value);
  if (text.includes('"') || text.includes(delimiter) || text.includes("\n") || text.includes("\r")) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

export function csvLine(values: readonly unknown[], delimiter = ","): string {
  let line = "";
  for (let i = 0; i < values.length; i++) line += (i === 0 ? "" : delimiter) + csvField(values[i], delimiter);
  return line + "\r\n";
}

/**
 * Groups small strings into larger buffers before they reach a stream: writing millions of tiny
 * chunks costs far more than the bytes themselves.
 */
export async function* batched(lines: AsyncIterable<string> | Iterable<string>, target = 256 * 1024): AsyncGenerator<Buffer> {
  let pending: string[] = [];
  let size = 0;
  for await (const line of lines) {
    pending.push(line);
    size += line.length;
    if (size >= target) {
      yield Buffer.from(pending.join(""), "utf8");
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(""), "utf8");
}
