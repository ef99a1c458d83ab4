/**
 * A small RFC 4180 reader for grouping files exported as CSV: every value stays text (codes such
 * as 1.10 or 0042 must not turn into numbers), quoted fields may hold delimiters and line breaks.
 */
export function parseCsv(text: string, delimiter?: string): string[][] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const sep = delimiter ?? guessDelimiter(source);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (quoted) {
      if (ch === '"') {
        if (source[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === sep) {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && source[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.map((r) => r.map((v) => v.trim()));
}

function guessDelimiter(text: string): string {
  const firstLines = text.split(/\r?\n/, 30).join("\n");
  const counts = [",", ";", "\t", "|"].map((d) => [d, firstLines.split(d).length] as const);
  return counts.sort((a, b) => b[1] - a[1])[0][0];
}
