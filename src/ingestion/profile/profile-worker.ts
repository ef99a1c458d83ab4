// Worker thread of a parallel stage: tokenizes the same UTF-8 chunks as the staging thread and
// profiles every data row, so that profiling runs on another core than tokenizing and encoding.
import { parentPort, workerData } from "node:worker_threads";
import { CsvTokenizer, type RecordView } from "../csv/tokenizer.js";
import type { FormatDetection } from "../detect.js";
import { RowRouter, scanColumns } from "../scan.js";
import type { GroupedFormat } from "../types.js";
import { Profiler } from "./profiler.js";

export interface ProfileWorkerData {
  detection: FormatDetection;
  degroup: GroupedFormat | null;
  /** The file's size when known (sizes the duplicate-row table, Profiler.expectBytes). */
  expectedBytes?: number | null;
}

export type ProfileWorkerMessage = { chunk: Uint8Array } | { end: true };

const { detection, degroup, expectedBytes } = workerData as ProfileWorkerData;
const { names, synthetic } = scanColumns(detection, degroup);
const profiler = new Profiler(names, synthetic);
profiler.expectBytes(expectedBytes);
const router = new RowRouter(detection.headerRowIndex, detection, degroup, {
  blank: (index) => profiler.addBlank(index),
  nonBlank: (index) => profiler.noteNonBlank(index),
  row: (record) => {
    profiler.add(record);
  },
});
const tokenizer = new CsvTokenizer({ delimiter: detection.delimiter.charCodeAt(0), quote: detection.quote ? detection.quote.charCodeAt(0) : -1 });
const handle = (record: RecordView) => router.record(record, false);

parentPort!.on("message", (message: ProfileWorkerMessage) => {
  try {
    if ("chunk" in message) {
      tokenizer.push(message.chunk, handle);
      parentPort!.postMessage({ ack: true });
    } else {
      tokenizer.end(handle);
      parentPort!.postMessage({ profile: profiler.finish() });
    }
  } catch (error) {
    parentPort!.postMessage({ error: (error as Error).message });
  }
});
