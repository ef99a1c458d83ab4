/** Splits a byte stream into UTF-8 lines (without the line break); works across chunk borders. */
export async function* utf8Lines(source: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  let rest = "";
  for await (const chunk of source) {
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const end = text.indexOf("\n", start);
      if (end < 0) break;
      yield text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
    }
    rest = text.slice(start);
  }
  rest += decoder.decode();
  if (rest.length > 0) yield rest;
}
