// CPU time of each part of reading an arriving file (not part of `npm run bench`): the same
// chunks through a growing pipeline (read, +validate, +tokenize, +profile, +encode), in this
// process, measured with process.cpuUsage so other load on the machine moves it little.
// `node --import tsx bench/upload-parts.ts FILE [parts...]` (REPS=n runs each; --trace-gc counts the garbage).
import { createReadStream, statSync } from "node:fs";
import { ArrivingBytes } from "../src/ingestion/byte-source.js";
import { utf8Chunks, Utf8Validator } from "../src/ingestion/csv/encoding.js";
import { CsvTokenizer, type RecordView } from "../src/ingestion/csv/tokenizer.js";
import { detectFormat } from "../src/ingestion/detect.js";
import { inspectFile } from "../src/ingestion/inspect.js";
import { Profiler } from "../src/ingestion/profile/profiler.js";
import { scanColumns } from "../src/ingestion/scan.js";
import { CopyRowEncoder } from "../src/ingestion/staging/copy-encoder.js";

const file = process.argv[2];
const only = process.argv.slice(3);
const detection = await detectFormat(file);

async function* pieces(): AsyncGenerator<Uint8Array> {
  // Network-sized pieces, as an upload arrives.
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) yield chunk as Buffer;
}

async function timed(name: string, work: () => Promise<unknown>) {
  if (only.length > 0 && !only.includes(name)) return;
  // The least CPU time of REPS runs (default 3): other load on the machine only ever adds.
  const runs: number[] = [];
  for (let r = 0; r < Number(process.env.REPS ?? 3); r++) {
    const before = process.cpuUsage();
    await work();
    const cpu = process.cpuUsage(before);
    runs.push((cpu.user + cpu.system) / 1000);
  }
  process.stdout.write(`${name.padEnd(22)} cpu min ${Math.min(...runs).toFixed(0).padStart(6)} ms  (${runs.map((r) => r.toFixed(0)).join(" ")})\n`);
}

const arriving = async (use: (chunk: Uint8Array) => void) => {
  const bytes = new ArrivingBytes();
  const feed = (async () => {
    for await (const p of pieces()) await bytes.push(p);
    bytes.end();
  })();
  for await (const chunk of utf8Chunks(bytes.chunks(), detection.encoding)) use(chunk);
  await feed;
};

const validator = () => new Utf8Validator();
const tokenizer = () => new CsvTokenizer({ delimiter: detection.delimiter.charCodeAt(0), quote: detection.quote ? detection.quote.charCodeAt(0) : -1 });
const { names, synthetic } = scanColumns(detection, null);

await timed("pieces", async () => {
  for await (const _ of pieces());
});
await timed("arriving", () => arriving(() => undefined));
await timed("+validate", () => arriving((c) => validator().check(c)));
await timed("+tokenize", () => {
  const t = tokenizer();
  return arriving((c) => t.push(c, () => undefined));
});
await timed("+profile", () => {
  const t = tokenizer();
  const p = new Profiler(names, synthetic);
  p.expectBytes(statSync(file).size);
  const onRecord = (r: RecordView) => (r.index > 0 ? p.add(r) : undefined);
  return arriving((c) => t.push(c, onRecord));
});
await timed("+encode", () => {
  const t = tokenizer();
  const e = new CopyRowEncoder(detection.width, detection.delimiter.charCodeAt(0), detection.quote ? detection.quote.charCodeAt(0) : -1, []);
  const onRecord = (r: RecordView) => {
    if (r.index > 0) e.encode(r, undefined, undefined, true);
  };
  return arriving((c) => {
    t.push(c, onRecord);
    e.take();
  });
});
await timed("+profile+encode", () => {
  const t = tokenizer();
  const p = new Profiler(names, synthetic);
  p.expectBytes(statSync(file).size);
  const e = new CopyRowEncoder(detection.width, detection.delimiter.charCodeAt(0), detection.quote ? detection.quote.charCodeAt(0) : -1, []);
  const onRecord = (r: RecordView) => {
    if (r.index > 0 && p.add(r)) e.encode(r, p.shadowSet, p.shadowValue, true);
  };
  return arriving((c) => {
    t.push(c, onRecord);
    e.take();
  });
});
await timed("inspectFile", () => inspectFile(file, { detection }));
