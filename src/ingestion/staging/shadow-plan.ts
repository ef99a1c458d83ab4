// Which columns of a stage get a typed shadow, from the first rows of the file. Shared by the
// staging thread (files read in this thread) and the staging worker (which plans the shadows of
// its stage with its own code, compiled and optimized by the stages before: see stage.ts).
import { decodeHead } from "../csv/encoding.js";
import { sampleRecords } from "../csv/sniff.js";
import { recordFromTexts } from "../csv/tokenizer.js";
import type { FormatDetection } from "../detect.js";
import { createDegrouper } from "../formats/index.js";
import { dateOrderOf, orderBits } from "../profile/date-shape.js";
import { dominantType, formatCandidates } from "../profile/file-info.js";
import { Profiler, type ShadowSpec } from "../profile/profiler.js";
import type { GroupedFormat } from "../types.js";

/** Records planned from (the first ones of the file). */
export const PLAN_RECORDS = 2000;

/** The first records of delimited text from its head bytes, as `rowSource(...).head(maxRecords)` reads them. */
export function headRecords(head: Uint8Array, detection: FormatDetection, maxRecords: number, complete: boolean): string[][] {
  return sampleRecords(new TextEncoder().encode(decodeHead(head, detection.encoding)), detection.delimiter, detection.quote, maxRecords, complete);
}

/**
 * Which columns get a typed shadow, decided from the first records: amount columns (numbers with
 * decimals, one unambiguous number format) and date columns (one unambiguous date format). A
 * format the full file later contradicts only means the shadow is not used.
 */
export function planShadows(records: string[][], detection: FormatDetection, degroupFormat: GroupedFormat | null, width: number): ShadowSpec[] {
  const start = detection.headerRowIndex === null ? 0 : detection.headerRowIndex + 1;
  const degrouper = degroupFormat ? createDegrouper(degroupFormat, detection.header) : null;
  const profiler = new Profiler(Array.from({ length: width }, (_, i) => `c${i}`), new Array(width).fill(false));
  for (let i = start; i < records.length; i++) {
    if (degrouper) for (const row of degrouper.push(records[i], i)) profiler.add(recordFromTexts(row.values, row.index));
    else profiler.add(recordFromTexts(records[i], i));
  }
  return profiler.finish().columns.map((c): ShadowSpec => {
    const type = dominantType(c);
    const candidates = formatCandidates(c, type);
    if (!candidates?.detectedFormat) return null;
    if (type === "NUMBER") {
      const decimals = [...c.samples, ...c.examples.NUMBER.map(([, v]) => v)].some((v) => /[.,]\d{1,2}\)?-?$/.test(v.trim()));
      return decimals && c.numberCount >= c.nonBlank * 0.9 ? { kind: "MONEY_100", format: candidates.detectedFormat } : null;
    }
    if (type === "DATE") return { kind: "DATE", format: candidates.detectedFormat, order: orderBits(dateOrderOf(candidates.detectedFormat)) };
    return null;
  });
}
