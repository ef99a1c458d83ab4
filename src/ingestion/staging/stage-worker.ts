// Worker thread of a stage: the staging thread hands it the file's bytes as they come (an upload
// arriving, a stored file read) and it does all the per-byte work of the pass: UTF-8 checks,
// tokenizing, routing (degrouping), profiling, typed shadows and the COPY encoding, handing the
// encoded rows back. The staging thread is left with moving bytes (request, storage, COPY socket),
// so an upload's reading no longer competes with the server's event loop.
//
// One worker serves one stage after another (stage.ts keeps it between stages): its code stays
// compiled and optimized from one file to the next instead of being compiled again, on the same
// cores, for every upload.
import { parentPort } from "node:worker_threads";
import type { ByteSource } from "../byte-source.js";
import type { FormatDetection } from "../detect.js";
import type { ShadowSpec } from "../profile/profiler.js";
import { scanFile, type ScanResult } from "../scan.js";
import type { GroupedFormat } from "../types.js";
import { CopyRowEncoder } from "./copy-encoder.js";
import { headRecords, planShadows, PLAN_RECORDS } from "./shadow-plan.js";

export interface StageWorkerData {
  detection: FormatDetection;
  degroup: GroupedFormat | null;
  shadows: ShadowSpec[];
  shadowsOnly: boolean;
  width: number;
  /** The file's size when known (sizes the duplicate-row table, Profiler.expectBytes). */
  expectedBytes: number | null;
}

/** What the worker plans a stage's typed shadows from: the file's head bytes (`complete`: the whole file). */
export interface ShadowPlanData {
  head: Uint8Array;
  complete: boolean;
  detection: FormatDetection;
  degroup: GroupedFormat | null;
  width: number;
}

/**
 * To the worker: optionally a stage's shadow plan first (answered by `shadows`), then a new stage,
 * the next chunk of its file's bytes, then their end.
 */
export type ToStageWorker = { plan: ShadowPlanData } | { start: StageWorkerData } | { chunk: Uint8Array } | { end: true };

/**
 * From the worker: encoded rows (in order) and, with `taken`, that it took another chunk; at the
 * end the scan's result; or the error that ended it. After either it waits for the next `start`.
 */
export type FromStageWorker =
  | { shadows: ShadowSpec[] }
  | { encoded: Uint8Array[]; taken?: true }
  | { encoded: Uint8Array[]; done: ScanResult; passedThrough: number }
  | { error: string };

const port = parentPort!;
/** The running stage's chunks not yet read (null: their end); a `start` begins the next stage. */
let queue: (Uint8Array | null)[] = [];
let wake: (() => void) | null = null;
let running: Promise<void> = Promise.resolve();
port.on("message", (message: ToStageWorker) => {
  if ("plan" in message) {
    // Sent before the stage's `start`, while no stage runs: planned with this worker's code, warm
    // from the stages before (the staging thread runs it once per stage, cold).
    const { head, complete, detection, degroup, width } = message.plan;
    try {
      port.postMessage({ shadows: planShadows(headRecords(head, detection, PLAN_RECORDS, complete), detection, degroup, width) } satisfies FromStageWorker);
    } catch (error) {
      port.postMessage({ error: (error as Error).message } satisfies FromStageWorker);
    }
    return;
  }
  if ("start" in message) {
    // The staging thread sends a stage's `start` only after the previous one answered.
    const chunks: (Uint8Array | null)[] = [];
    queue = chunks;
    running = running.then(() => stage(message.start, chunks));
    return;
  }
  queue.push("chunk" in message ? message.chunk : null);
  const w = wake;
  wake = null;
  w?.();
});

async function stage(data: StageWorkerData, queue: (Uint8Array | null)[]): Promise<void> {
  const source: ByteSource = {
    rereadable: false,
    size: data.expectedBytes,
    head: () => Promise.reject(new Error("The staging worker reads its bytes once, in order")),
    async *chunks() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const chunk = queue.shift()!;
        if (chunk === null) return;
        port.postMessage({ encoded: [], taken: true } satisfies FromStageWorker);
        yield chunk;
      }
    },
  };
  const encoder = new CopyRowEncoder(data.width, data.detection.delimiter.charCodeAt(0), data.detection.quote ? data.detection.quote.charCodeAt(0) : -1, data.shadows);
  /** Hands the encoded buffers over (each owns its memory: the encoder allocates a new one after handing one out). */
  const send = () => {
    const encoded = encoder.take();
    if (encoded.length > 0) port.postMessage({ encoded } satisfies FromStageWorker, encoded.map((b) => b.buffer as ArrayBuffer));
  };
  try {
    const done: ScanResult = await scanFile(source, data.detection, {
      degroup: data.degroup,
      shadows: data.shadows,
      shadowsOnly: data.shadowsOnly,
      onRow: (record, set, value, clean) => encoder.encode(record, set, value, clean),
      afterChunk: async () => send(),
    });
    const encoded = encoder.finish();
    port.postMessage({ encoded, done, passedThrough: encoder.passedThrough } satisfies FromStageWorker, encoded.map((b) => b.buffer as ArrayBuffer));
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies FromStageWorker);
  }
}
