/** `ledger.2024.csv` → stem `ledger.2024`, extension `csv`; no dot → no extension. */
export function splitFileName(fileName: string): { stem: string; extension: string | null } {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf(".");
  if (dot <= 0 || dot === base.length - 1) return { stem: base, extension: null };
  return { stem: base.slice(0, dot), extension: base.slice(dot + 1) };
}

const CONTENT_TYPES: Record<string, string> = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  txt: "text/plain",
  json: "application/json",
  xml: "application/xml",
  zip: "application/zip",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xls: "application/vnd.ms-excel",
  pdf: "application/pdf",
};

export function contentTypeFor(extension: string | null, fallback?: string): string {
  return (extension && CONTENT_TYPES[extension.toLowerCase()]) || (fallback && fallback !== "application/octet-stream" ? fallback : undefined) || "application/octet-stream";
}
