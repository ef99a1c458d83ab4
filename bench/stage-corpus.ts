// The staged rows of a corpus of awkward files, to compare two versions of the staging pass (not
// part of `npm run bench`): every fixture layout (degrouped or not), four delimiters, two quotes,
// LF/CRLF/CR line ends, blanks around values, quoted blanks, NUL, invalid UTF-8, 200 KB values,
// fields beyond the header, amounts beyond 2^53 and beyond bigint, plus a generated ledger. Each
// file is staged in one thread, in the worker and from arriving bytes; one line per stage with the
// md5 of the staged table (every column, by row_no), its columns and the md5 of the file info.
// `node --import tsx bench/stage-corpus.ts > a.txt`, change, again, `diff`. ONLY=name: one file;
// DUMP=name: its rows after the 60th.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { benchDatabase } from "./lib.js";
import { stageFile } from "../src/ingestion/staging/stage.js";
import { ArrivingBytes } from "../src/ingestion/byte-source.js";
import * as fx from "../test/ingestion/fixtures.js";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";

const dir = mkdtempSync(join(tmpdir(), "cmp-"));
const files: [string, Buffer, boolean?][] = [];
const only = process.env.ONLY;
const add = (name: string, data: string | Buffer, degroup = false) => files.push([name, Buffer.isBuffer(data) ? data : Buffer.from(data), degroup]);
add("erp", Buffer.concat([fx.UTF8_BOM, Buffer.from(fx.ERP_GENERAL_LEDGER)]));
add("fec", fx.frenchFec());
add("de", fx.germanLedger());
for (const k of ["SPANISH_LEDGER", "SIGNED_AMOUNT_LEDGER", "QUICKBOOKS_ONLINE_JOURNAL", "QUICKBOOKS_DESKTOP_JOURNAL", "QUICKBOOKS_TRANSACTION_DETAIL", "SAGE50_GENERAL_LEDGER", "HEADERLESS", "QUICKBOOKS_ONLINE_JOURNAL_2024", "SAGE50_GENERAL_JOURNAL", "SAGE50_UK_NOMINAL_ACTIVITY", "DYNAMICS_GP_JOURNAL", "CCH_ACCOUNT_LISTING"]) {
  add(k, (fx as any)[k]);
  add(k + "-degroup", (fx as any)[k], true);
}
// Tricky rows after 60 regular ones (so that shadows are planned), in several dialects.
function tricky(d: string, q: string, eol: string, dirty = true, filler = 0): Buffer {
  const rows: (string | Buffer)[] = [`Id${d}Date${d}Amount${d}Memo${d}Account${eol}`];
  for (let i = 0; i < 60; i++) rows.push(`${i}${d}01/${String((i % 28) + 1).padStart(2, "0")}/2023${d}${i * 3}.${String(i % 100).padStart(2, "0")}${d}memo ${i}${d}${1000 + i}${eol}`);
  const Q = (s: string) => q + s + q;
  const lines = [
    `100${d}  01/05/2023 ${d} 12.50 ${d}  padded  ${d}\t7\t`,
    `101${d}${Q("")}${d}${Q("")}${d}${Q("")}${d}`,
    `102${d}${d}${d}${d}`,
    `103${d}01/05/2023${d}-5.00${d}${Q(`say ${q}${q}hi${q}${q}`)}${d}x`,
    `104${d}01/05/2023${d}(5.00)${d}${Q(`multi${eol}line${d} with delim`)}${d}y`,
    `105${d}01/05/2023${d}5${d}naïve café ünïcödé 日本語 😀${d}z`,
    `106${d}01/05/2023${d}5${d}mid${q}quote${d}z`,
    `107${d}01/05/2023${d}5${d}${Q("closed")}trailing${d}z`,
    `108${d}01/05/2023${d}5${d}extra${d}z${d}more${d}fields${d}${d}`,
    `109${d}01/05/2023${d}5${d}extra blank${d}z${d}  ${d}\t`,
    `110${d}01/05/2023`,
    `111${d}13/45/2023${d}abc${d}${"long".repeat(50000)}${d}z`,
    `112${d}01/05/2023${d}12345678901234567.89${d}big${d}z`,
    `113${d}01/05/2023${d}-92233720368547.58${d}big neg${d}z`,
    `114${d}01/05/2023${d}1,234.56${d}back\\slash \\N \\.${d}z`,
    `115${d}01/05/2023${d}5${d}${Q(" quoted padded ")}${d}${Q("")}`,
    `116${d}01/05/2023${d}5${d}tab\tinside${d}z`,
    `117${d}01/05/2023${d}5${d}${Q("\\.")}${d}z`,
    `   ${d}  ${d}${d}${d}`,
    ``,
    `118${d}01/05/2023${d}5${d}${Q(`${q}${q}`)}${d}${q}${q}${q}${q}`,
  ];
  for (const l of lines) rows.push(l + eol);
  for (let i = 0; i < filler; i++) rows.push(`${5000 + i}${d}02/${String((i % 28) + 1).padStart(2, "0")}/2023${d}${i}.5${d}filler ${i}${d}${i % 7}${eol}`);
  if (dirty) rows.push(Buffer.from([0x31, 0x31, 0x39, d.charCodeAt(0), 0x30, 0x31, 0x2f, 0x30, 0x35, 0x2f, 0x32, 0x30, 0x32, 0x33, d.charCodeAt(0), 0x35, d.charCodeAt(0), 0x62, 0xff, 0xfe, 0x00, 0x63, 0x20, 0xc3, d.charCodeAt(0), 0x00, 0x0a]));
  if (dirty) rows.push(Buffer.from(`120${d}01/05/2023${d}5${d}\0${d}\0 \0${eol}`));
  if (dirty) rows.push(Buffer.from(`121${d}01/05/2023${d}5${d}e${d}f${d}\0${d}\0${eol}`));
  rows.push(`122${d}01/05/2023${d}5${d}no final eol${d}${Q("unterminated")}`);
  return Buffer.concat(rows.map((r) => (Buffer.isBuffer(r) ? r : Buffer.from(r))));
}
add("tricky-comma-lf", tricky(",", '"', "\n"));
add("clean-comma-lf", tricky(",", '"', "\n", false));
add("clean-semicolon-crlf", tricky(";", '"', "\r\n", false));
add("clean-tab-cr", tricky("\t", '"', "\r", false));
add("clean-comma-single", tricky(",", "'", "\n", false));
add("mixed-comma-lf", tricky(",", '"', "\n", true, 60000));
add("utf8-dirty-after", Buffer.concat([Buffer.from("Id,Memo,Amount\n"), ...Array.from({ length: 30000 }, (_, i) => Buffer.from(`${i}, é ${i} ,"${i}.25"\n`)), Buffer.from([0x31, 0x2c, 0x00, 0x61, 0x2c, 0x31, 0x0a]), Buffer.from('2,"x""y",  \n')]));
add("bigamount", Buffer.concat([Buffer.from("Id,Amount\n"), ...Array.from({ length: 100 }, (_, i) => Buffer.from(`${i},${i}.25\n`)), Buffer.from("1,92233720368547758.07\n2,-92233720368547758.08\n")]));
add("bigamount-over", Buffer.concat([Buffer.from("Id,Amount\n"), ...Array.from({ length: 100 }, (_, i) => Buffer.from(`${i},${i}.25\n`)), Buffer.from("1,99999999999999999999999.99\n")]));
add("bigamount-over-neg", Buffer.concat([Buffer.from("Id,Amount\n"), ...Array.from({ length: 100 }, (_, i) => Buffer.from(`${i},${i}.25\n`)), Buffer.from("1,-92233720368547758.09\n")]));
add("bigamount-exp", Buffer.concat([Buffer.from("Id,Amount\n"), ...Array.from({ length: 100 }, (_, i) => Buffer.from(`${i},${i}.25\n`)), Buffer.from("1,1.5E+15\n2,1.5E+16\n3,9.2E+16\n4,1E+300\n")]));
add("tricky-semicolon-crlf", tricky(";", '"', "\r\n"));
add("tricky-tab-cr", tricky("\t", '"', "\r"));
add("tricky-pipe-lf", tricky("|", '"', "\n"));
add("tricky-comma-single", tricky(",", "'", "\n"));
const gen = join(dir, "gen.csv");
await writeGeneralLedgerCsv(gen, 30000, 7);
files.push(["gen-30000", (await import("node:fs")).readFileSync(gen), false]);

const db = await benchDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 4 });
await pool.query("CREATE SCHEMA IF NOT EXISTS ingest");
try {
  for (const [name, data, degroup] of files.filter(([n]) => !only || n === only)) {
    const path = join(dir, name + ".csv");
    writeFileSync(path, data);
    for (const mode of ["file-main", "file-worker", "arriving-worker"] as const) {
      const t = `ingest.s_${name.replace(/[^a-z0-9]/gi, "_").toLowerCase()}`;
      let src: any = path;
      let feed: Promise<void> | null = null;
      if (mode === "arriving-worker") {
        const bytes = new ArrivingBytes(undefined, data.length);
        src = bytes;
        feed = (async () => { for (let i = 0; i < data.length; i += 7001) await bytes.push(data.subarray(i, i + 7001)); bytes.end(); })();
      }
      try {
        const r = await stageFile(pool, src, { table: t, name: "f.csv", degroup, parallel: mode !== "file-main" });
        await feed;
        const cols = (await pool.query(`SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ',' ORDER BY attnum) AS c FROM pg_attribute WHERE attrelid = '${t}'::regclass AND attnum > 0`)).rows[0].c;
        const md5 = (await pool.query(`SELECT md5(string_agg(t::text, E'\\n' ORDER BY row_no)) AS m, count(*) n FROM ${t} t`)).rows[0];
        console.log(`${name.padEnd(34)} ${mode.padEnd(15)} rows ${md5.n} md5 ${md5.m} cols ${cols} info ${(await import("node:crypto")).createHash("md5").update(JSON.stringify(r.fileInfo)).digest("hex")}`);
        if (process.env.DUMP === name && mode === "file-main") console.log((await pool.query(`SELECT * FROM ${t} ORDER BY row_no`)).rows.slice(60));
      } catch (e) {
        await feed?.catch(() => undefined);
        console.log(`${name.padEnd(34)} ${mode.padEnd(15)} ERROR ${(e as Error).message.slice(0, 200)}`);
      }
    }
  }
} finally {
  await pool.end();
  await db.stop();
}
