import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past its live size before the next full GC, as a percent
 * (V8's `--heap-growing-percent`). V8 sizes that room by how fast the isolate has allocated since
 * its last full GC: a server that idled or ran database-bound work in between gets its minimum
 * (live + 8 MB + the new space), which is less than the new space it checks against, so once a
 * 1M-line upload streams its buffers through the main thread every scavenge starts another
 * incremental marking of the ~65 MB live heap: 4-15 Mark-Compacts per upload, 0.3-0.8 CPU-s of the
 * two cores the upload needs (docs/architecture.md, "An upload after ingestions"). A fixed 50%
 * keeps the upload free of full GCs for a few tens of MB more heap.
 */
export const HEAP_GROWING_PERCENT = 50;

/** Sets the growth unless the process was started with its own (`node --heap-growing-percent=N`, or in NODE_OPTIONS). */
export function tuneHeapGrowth(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
