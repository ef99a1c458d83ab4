import { createReadStream, readFileSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneralLedgerCsv } from "../../../test/helpers/gl-generator.js";
import { createTestDatabase } from "../../../test/helpers/database.js";
import { ERP_GENERAL_LEDGER, FixtureDir, frenchFec, germanLedger, QUICKBOOKS_ONLINE_JOURNAL, UTF8_BOM } from "../../../test/ingestion/fixtures.js";
import { ArrivingBytes } from "../byte-source.js";
import { detectFormat } from "../detect.js";
import { inspectFile } from "../inspect.js";
import { daysSince2000 } from "../profile/profiler.js";
import { dropTables, stagedRowCount, stageFile } from "./stage.js";

let pool: pg.Pool;
const dir = new FixtureDir();
beforeAll(async () => {
  const { url } = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  dir.remove();
});

async function rows(table: string, columns = "*"): Promise<Record<string, unknown>[]> {
  return (await pool.query(`SELECT ${columns} FROM ${table} ORDER BY row_no`)).rows;
}

describe("staging", () => {
  it("streams data rows into text columns: record index, trimmed values, NULL blanks, quotes undone", async () => {
    const file = dir.write("erp.csv", Buffer.concat([UTF8_BOM, Buffer.from(ERP_GENERAL_LEDGER)]));
    const result = await stageFile(pool, file, { table: "ingest.stg_erp" });
    expect(result.rowCount).toBe(10);
    expect(result.columns.slice(0, 3)).toEqual([
      { position: 0, name: "Journal ID", sqlName: "c0" },
      { position: 1, name: "Line", sqlName: "c1", integers: true },
      { position: 2, name: "Effective Date", sqlName: "c2", shadow: { sqlName: "d2", type: "DATE", format: "MM/dd/yyyy" } },
    ]);
    // Debits and credits never negative, never both in a row: what lets the parse store them as they are.
    expect(result.columns[6].shadow).toEqual({ sqlName: "n6", type: "MONEY_100", format: "#,##0.00", negatives: false, sharesRowsWith: [] });
    expect(result.columns[7].shadow).toEqual({ sqlName: "n7", type: "MONEY_100", format: "#,##0.00", negatives: false, sharesRowsWith: [] });
    const staged = await rows("ingest.stg_erp");
    expect(staged.map((r) => Number(r.row_no))).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10, 11]);
    expect(staged[0]).toMatchObject({ c0: "JE1001", c2: "01/15/2023", c6: "1,250.00", c7: null, c8: "Invoice 4471, freight", n6: "125000", n7: null, d2: daysSince2000(2023, 1, 15) });
    expect(staged[2].c8).toBe('Paper "A4" and toner');
    expect(staged[6]).toMatchObject({ c2: "13/45/2023", d2: null, c4: null, c8: "Reclass per review,\nsee memo" });
    expect(await stagedRowCount(pool, "ingest.stg_erp")).toBe(10);
  });

  it("holds exactly what PostgreSQL's own CSV parser reads from the same file", async () => {
    const file = dir.write("generated.csv", "");
    await writeGeneralLedgerCsv(file, 3000, 7);
    const result = await stageFile(pool, file, { table: "ingest.stg_generated" });
    // Clean regular rows go to COPY as they are; rows with doubled quotes are rebuilt.
    expect(result.rowsPassedThrough).toBeGreaterThan(2500);
    expect(result.rowsPassedThrough).toBeLessThan(3000);
    await pool.query(`CREATE TABLE bare (${Array.from({ length: 13 }, (_, i) => `b${i} text`).join(", ")})`);
    const client = await pool.connect();
    try {
      await pipeline(createReadStream(file), client.query(copyFrom("COPY bare FROM STDIN WITH (FORMAT csv, HEADER)")));
    } finally {
      client.release();
    }
    const staged = Array.from({ length: 13 }, (_, i) => `c${i}`).join(", ");
    const bare = Array.from({ length: 13 }, (_, i) => `nullif(btrim(b${i}), '')`).join(", ");
    const difference = await pool.query(`SELECT count(*) AS n FROM ((SELECT ${staged} FROM ingest.stg_generated EXCEPT ALL SELECT ${bare} FROM bare) UNION ALL (SELECT ${bare} FROM bare EXCEPT ALL SELECT ${staged} FROM ingest.stg_generated)) d`);
    expect(Number(difference.rows[0].n)).toBe(0);
    expect(Number((await pool.query("SELECT count(*) AS n FROM bare")).rows[0].n)).toBe(3000);
    // The typed shadows agree with PostgreSQL's own reading of the text.
    const check = await pool.query(
      `SET DateStyle = 'ISO, MDY'; SELECT count(*) FILTER (WHERE n6 IS DISTINCT FROM (replace(c6, ',', '')::numeric * 100)::bigint OR d2 IS DISTINCT FROM (c2::date - DATE '2000-01-01')) AS n FROM ingest.stg_generated`,
    );
    expect(Number((check as unknown as pg.QueryResult[])[1].rows[0].n)).toBe(0);
  });

  it("re-encodes Windows-1252 and UTF-16 files to UTF-8", async () => {
    await stageFile(pool, dir.write("fec.txt", frenchFec()), { table: "ingest.stg_fec" });
    expect((await rows("ingest.stg_fec", "row_no, c5, c7, c10"))[0]).toMatchObject({ c5: "Clients", c7: "Société Générale", c10: "Facture n°1 – électricité" });
    await stageFile(pool, dir.write("de.txt", germanLedger()), { table: "ingest.stg_de" });
    expect((await rows("ingest.stg_de", "row_no, c4, c5, c6"))[1]).toMatchObject({ c4: "Erlöse 19 % USt", c5: "Überweisung Müller GmbH", c6: null });
  });

  it("degroups while staging", async () => {
    const result = await stageFile(pool, dir.write("qbo.csv", QUICKBOOKS_ONLINE_JOURNAL), { table: "ingest.stg_qbo", degroup: true });
    expect(result.degrouped).toBe("QUICKBOOKS_JOURNAL");
    expect(result.columns.map((c) => c.name)).toEqual(["Date", "Transaction Type", "Num", "Name", "Memo/Description", "Account", "Debit", "Credit", "Transaction Number"]);
    const staged = await rows("ingest.stg_qbo", "row_no, c0, c3, c5, c8");
    expect(staged.map((r) => [Number(r.row_no), r.c0, r.c3, r.c5, r.c8])).toEqual([
      [5, "01/03/2023", "Amy's Bird Sanctuary", "Accounts Receivable (A/R)", "1"],
      [6, "01/03/2023", "Amy's Bird Sanctuary", "Services", "1"],
      [7, "01/03/2023", "Amy's Bird Sanctuary", "Landscaping Services:Job Materials:Fountains and Garden Lighting", "1"],
      [10, "01/05/2023", "Hicks Hardware", "Checking", "2"],
      [11, "01/05/2023", "Hicks Hardware", "Job Expenses:Job Materials", "2"],
      [14, "02/14/2023", null, "Utilities", "3"],
      [15, "02/14/2023", null, "Accrued Liabilities", "3"],
    ]);
    expect(result.fileInfo.rowCount).toBe(7);
  });

  it("rebuilds the rows COPY cannot take as they are: invalid UTF-8, NUL, tabs, backslashes, fields beyond the header", async () => {
    const content = Buffer.concat([
      Buffer.from("Account,Memo,Amount\n4000,plain,4.00\n5000,plain,5.00\n"),
      Buffer.from("1000,bad "),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(" bytes,1.00\n"),
      Buffer.from('2000,"tab\there \\N back\\slash\u0000nul",2.00,extra one,extra two\n'),
      Buffer.from("3000,short\n"),
    ]);
    const file = dir.write("odd.csv", content);
    // The head is not valid UTF-8 here; a file whose bad bytes come after the first megabyte is read as UTF-8.
    const detection = { ...(await detectFormat(file)), encoding: { encoding: "UTF-8" as const, bom: false } };
    const result = await stageFile(pool, file, { table: "ingest.stg_odd", detection });
    const staged = await rows("ingest.stg_odd");
    expect(staged.slice(2).map((r) => [r.c0, r.c1, r.c2, r.extra])).toEqual([
      ["1000", "bad \ufffd\ufffd bytes", "1.00", null],
      ["2000", "tab\there \\N back\\slashnul", "2.00", "extra one,extra two"],
      ["3000", "short", null, null],
    ]);
    // Two invalid bytes and one NUL.
    expect(result.fileInfo.tableMetadata.specialCharacterMetrics).toMatchObject({ state: "WARN", invalidCharacters: 3 });
    expect(result.fileInfo.tableMetadata.unevenColumnsMetrics).toMatchObject({ state: "WARN", count: 2 });
  });

  it("stores the values PostgreSQL's CSV reader took from the rows before: blanks kept in clean rows, quoted blanks NULL, long and non-ASCII values, amounts at the edge of bigint", async () => {
    const regular = Array.from({ length: 40 }, (_, i) => `${i},01/${String((i % 28) + 1).padStart(2, "0")}/2023,${i}.25,memo ${i}\n`).join("");
    const long = "x".repeat(300_000);
    const content = [
      "Id,Date,Amount,Memo\n",
      regular,
      "100, 01/05/2023 , 12.50 ,\t padded \t\n",
      '101,"",  ,""\n',
      '102,01/05/2023,"1,234.56","quoted, with ""quotes"" and a\r\nline break"\n',
      `103,01/05/2023,-92233720368547.58,naïve café 日本語 😀\n`,
      `104,01/05/2023,123456789012345.67,${long}\n`,
      "105,01/05/2023,5.00,a,b,,c\n",
    ].join("");
    const file = dir.write("values.csv", content);
    for (const parallel of [false, true]) {
      const table = `ingest.stg_values_${parallel ? "worker" : "main"}`;
      const result = await stageFile(pool, file, { table, parallel });
      expect(result.columns.map((c) => c.shadow?.sqlName)).toEqual([undefined, "d1", "n2", undefined]);
      const staged = (await rows(table)).slice(40);
      expect(staged.map((r) => [r.row_no, r.c0, r.c1, r.c2, r.c3, r.extra, r.d1, r.n2])).toEqual([
        ["41", "100", " 01/05/2023 ", " 12.50 ", "\t padded \t", null, daysSince2000(2023, 1, 5), "1250"],
        ["42", "101", null, "  ", null, null, null, null],
        ["43", "102", "01/05/2023", "1,234.56", 'quoted, with "quotes" and a\r\nline break', null, daysSince2000(2023, 1, 5), "123456"],
        ["44", "103", "01/05/2023", "-92233720368547.58", "naïve café 日本語 😀", null, daysSince2000(2023, 1, 5), "-9223372036854758"],
        // Beyond 2^53 cents the amount is the nearest double (as it was in CSV).
        ["45", "104", "01/05/2023", "123456789012345.67", long, null, daysSince2000(2023, 1, 5), "12345678901234568"],
        ["46", "105", "01/05/2023", "5.00", "a", "b,,c", daysSince2000(2023, 1, 5), "500"],
      ]);
      expect(result.rowsPassedThrough).toBe(44);
    }
    // An amount beyond bigint fails the stage with PostgreSQL's message, and leaves no table.
    const over = dir.write("over.csv", `Id,Amount\n${Array.from({ length: 40 }, (_, i) => `${i},${i}.25\n`).join("")}1,99999999999999999999999.99\n`);
    for (const parallel of [false, true]) {
      await expect(stageFile(pool, over, { table: "ingest.stg_over", parallel })).rejects.toThrow(/out of range for type bigint/);
      expect(await stagedRowCount(pool, "ingest.stg_over")).toBeNull();
    }
  });

  it("replaces the table on a re-run, and keeps the previous one when a run fails", async () => {
    const file = dir.write("again.csv", "A,B\n1,2\n3,4\n");
    await stageFile(pool, file, { table: "ingest.stg_again" });
    const second = await stageFile(pool, file, { table: "ingest.stg_again" });
    expect(second.rowCount).toBe(2);
    expect(await stagedRowCount(pool, "ingest.stg_again")).toBe(2);
    // Reading fails after the old table was dropped inside the transaction: the drop is rolled back.
    await expect(stageFile(pool, dir.path, { table: "ingest.stg_again", detection: second.detection })).rejects.toThrow(/EISDIR/);
    await expect(stageFile(pool, `${dir.path}/missing.csv`, { table: "ingest.stg_again" })).rejects.toThrow(/ENOENT/);
    // Failing while the COPY is open: the COPY is aborted, the transaction rolled back, the connection reusable.
    for (const parallel of [false, true]) {
      await expect(stageFile(pool, dir.path, { table: "ingest.stg_again", detection: second.detection, typedShadows: false, parallel })).rejects.toThrow(/EISDIR/);
      expect(await stagedRowCount(pool, "ingest.stg_again")).toBe(2);
    }
    expect(await stagedRowCount(pool, "ingest.stg_again")).toBe(2);
    await dropTables(pool, ["ingest.stg_again"]);
    expect(await stagedRowCount(pool, "ingest.stg_again")).toBeNull();
    await expect(stageFile(pool, file, { table: "public.x; DROP TABLE y" })).rejects.toThrow(/Invalid table name/);
  });
});

describe("parallel staging", () => {
  it("reads in a worker thread with the same file info and staged rows as one thread", async () => {
    const file = dir.write("parallel.csv", "");
    await writeGeneralLedgerCsv(file, 5000, 11);
    const inline = await stageFile(pool, file, { table: "ingest.stg_inline", parallel: false });
    const parallel = await stageFile(pool, file, { table: "ingest.stg_parallel", parallel: true });
    expect(parallel.fileInfo).toEqual(inline.fileInfo);
    expect(parallel.columns).toEqual(inline.columns);
    expect(parallel.rowsPassedThrough).toBe(inline.rowsPassedThrough);
    const difference = await pool.query("SELECT count(*) AS n FROM ((TABLE ingest.stg_inline EXCEPT ALL TABLE ingest.stg_parallel) UNION ALL (TABLE ingest.stg_parallel EXCEPT ALL TABLE ingest.stg_inline)) d");
    expect(Number(difference.rows[0].n)).toBe(0);
    const qbo = dir.write("qbo-parallel.csv", QUICKBOOKS_ONLINE_JOURNAL);
    const grouped = await stageFile(pool, qbo, { table: "ingest.stg_qbo_parallel", degroup: true, parallel: true });
    expect(grouped.fileInfo.rowCount).toBe(7);
    expect(grouped.fileInfo).toEqual((await stageFile(pool, qbo, { table: "ingest.stg_qbo_inline", degroup: true, parallel: false })).fileInfo);
  });

  it("hands its result over once the rows are all sent to COPY, and keeps nothing when it fails after that", async () => {
    const file = dir.write("handed.csv", "");
    await writeGeneralLedgerCsv(file, 3000, 5);
    for (const parallel of [false, true]) {
      let handed: unknown = null;
      const staged = await stageFile(pool, file, { table: `ingest.stg_handed_${parallel}`, parallel, onRowsHandedOver: (result) => (handed = result) });
      expect(handed).toBe(staged);
      // Anything failing after the hand-over (here the callback itself) fails the stage: rolled back.
      const doomed = `ingest.stg_doomed_${parallel}`;
      const failing = () => {
        throw new Error("after the hand-over");
      };
      await expect(stageFile(pool, file, { table: doomed, parallel, onRowsHandedOver: failing })).rejects.toThrow("after the hand-over");
      expect(await stagedRowCount(pool, doomed)).toBeNull();
    }
  });

  it("reads one file after another in the worker kept between stages, also after a stage that failed midway", async () => {
    const file = dir.write("kept.csv", "");
    await writeGeneralLedgerCsv(file, 3000, 5);
    const inline = await stageFile(pool, file, { table: "ingest.stg_kept_inline", parallel: false });
    const content = readFileSync(file);
    // Upload-like stages side by side (two workers), then one whose bytes stop halfway.
    const both = await Promise.all(
      ["a", "b"].map(async (name) => {
        const bytes = new ArrivingBytes(64 * 1024, content.length);
        const [staged] = await Promise.all([stageFile(pool, bytes, { table: `ingest.stg_kept_${name}`, name: inline.fileInfo.name, parallel: true }), (async () => {
          for (let at = 0; at < content.length; at += 50_000) await bytes.push(content.subarray(at, at + 50_000));
          bytes.end();
        })()]);
        return staged;
      }),
    );
    for (const staged of both) expect(staged.fileInfo).toEqual(inline.fileInfo);
    const broken = new ArrivingBytes(64 * 1024, content.length);
    const failing = stageFile(pool, broken, { table: "ingest.stg_kept_broken", parallel: true });
    await broken.push(content.subarray(0, 200_000));
    broken.fail(new Error("The upload ended early"));
    await expect(failing).rejects.toThrow(/ended early/);
    expect(await stagedRowCount(pool, "ingest.stg_kept_broken")).toBeNull();
    for (let round = 0; round < 2; round++) {
      const again = await stageFile(pool, file, { table: "ingest.stg_kept_again", parallel: true });
      expect(again.fileInfo).toEqual(inline.fileInfo);
      const difference = await pool.query("SELECT count(*) AS n FROM ((TABLE ingest.stg_kept_inline EXCEPT ALL TABLE ingest.stg_kept_again) UNION ALL (TABLE ingest.stg_kept_again EXCEPT ALL TABLE ingest.stg_kept_inline)) d");
      expect(Number(difference.rows[0].n)).toBe(0);
    }
  });
});


describe("staging bytes as they arrive", () => {
  /** Pushes `content` in pieces of pseudo-random sizes up to `largest` bytes, as a network would. */
  async function arrive(bytes: ArrivingBytes, content: Buffer, largest: number) {
    let seed = 7;
    for (let at = 0; at < content.length; ) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const size = 1 + (seed % largest);
      await bytes.push(content.subarray(at, at + size));
      at += size;
    }
    bytes.end();
  }

  it("stages and profiles arriving bytes exactly as the stored file, whatever pieces they come in", async () => {
    const generated = dir.write("arriving.csv", "");
    await writeGeneralLedgerCsv(generated, 25_000, 5);
    const files: [string, Buffer][] = [
      ["generated", readFileSync(generated)],
      ["bom", Buffer.concat([UTF8_BOM, Buffer.from(ERP_GENERAL_LEDGER)])],
      ["fec", Buffer.from(frenchFec())],
      ["german", Buffer.from(germanLedger())],
    ];
    for (const [name, content] of files) {
      const stored = await stageFile(pool, dir.write(`${name}-stored.csv`, content), { table: `ingest.stg_${name}_stored`, name });
      const original = Buffer.from(content);
      // Read on this thread, then (as large uploads are) in the staging worker.
      for (const [largest, chunk, parallel] of [[7, 1 << 20, false], [65_536, 1 << 20, false], [3_000_000, 1 << 20, false], [3000, 4096, false], [65_536, 1 << 20, true]] as const) {
        const bytes = new ArrivingBytes(chunk);
        const [arrived] = await Promise.all([stageFile(pool, bytes, { table: `ingest.stg_${name}_arrived`, name, parallel }), arrive(bytes, content, largest)]);
        expect(arrived.fileInfo, `${name} in pieces of up to ${largest} bytes, chunks of ${chunk}${parallel ? ", in the worker" : ""}`).toEqual(stored.fileInfo);
        expect(arrived.columns).toEqual(stored.columns);
        // The pieces are the sender's: reading them (the tokenizer rewrites quoted fields in place) leaves them as they were.
        expect(content.equals(original), "the pushed bytes are untouched").toBe(true);
        const difference = await pool.query(
          `SELECT count(*) AS n FROM ((TABLE ingest.stg_${name}_stored EXCEPT ALL TABLE ingest.stg_${name}_arrived) UNION ALL (TABLE ingest.stg_${name}_arrived EXCEPT ALL TABLE ingest.stg_${name}_stored)) d`,
        );
        expect(Number(difference.rows[0].n)).toBe(0);
      }
    }
  });

  it("makes the sender wait for the reader, and stops reading when the bytes end early", async () => {
    const bytes = new ArrivingBytes(1000);
    let pushed = 0;
    const sending = (async () => {
      for (let i = 0; i < 10; i++) {
        await bytes.push(Buffer.alloc(1000, 0x41));
        pushed++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nothing read yet: two chunks wait, and the push that made the second waits with them.
    expect(pushed).toBe(1);
    const iterator = bytes.chunks()[Symbol.asyncIterator]();
    expect((await iterator.next()).value.length).toBe(1000);
    bytes.fail(new Error("The upload ended early"));
    await expect(iterator.next()).rejects.toThrow("ended early");
    bytes.abandon();
    await sending;
  });
});

describe("staging with a file info computed earlier", () => {
  it("stages the same rows and returns that file info without profiling again", async () => {
    const file = dir.write("known.csv", "");
    await writeGeneralLedgerCsv(file, 4000, 13);
    const profiled = await stageFile(pool, file, { table: "ingest.stg_profiled", name: "known.csv" });
    const earlier = await inspectFile(file, { name: "known.csv" });
    // A marker only the earlier file info has: proves it was returned rather than recomputed.
    const marked = { ...earlier, rowContentSnippets: [...earlier.rowContentSnippets, ["from import"]] };
    const reused = await stageFile(pool, file, { table: "ingest.stg_reused", name: "known.csv", fileInfo: marked });
    expect(reused.fileInfo).toEqual(marked);
    expect({ ...reused.fileInfo, rowContentSnippets: earlier.rowContentSnippets }).toEqual(profiled.fileInfo);
    // Without a profile of the values nothing proves a column all integers (the parse then casts as before).
    expect(reused.columns).toEqual(profiled.columns.map(({ integers: _, ...column }) => column));
    expect(profiled.columns.filter((c) => c.integers).map((c) => c.name)).toEqual(["Line", "Account"]);
    expect(reused.rowCount).toBe(4000);
    const difference = await pool.query("SELECT count(*) AS n FROM ((TABLE ingest.stg_profiled EXCEPT ALL TABLE ingest.stg_reused) UNION ALL (TABLE ingest.stg_reused EXCEPT ALL TABLE ingest.stg_profiled)) d");
    expect(Number(difference.rows[0].n)).toBe(0);
  });

  it("profiles when the earlier file info does not describe these rows", async () => {
    const file = dir.write("other.csv", "Account,Amount\n1000,1.00\n2000,2.00\n");
    const earlier = await inspectFile(file);
    // Another delimiter: another reading of the file.
    const otherLayout = await stageFile(pool, file, { table: "ingest.stg_other", fileInfo: { ...earlier, delimiter: ";", rowContentSnippets: [["stale"]] } });
    expect(otherLayout.fileInfo.rowContentSnippets).not.toContainEqual(["stale"]);
    // Same layout, other row count (another file's info): the pass is redone with profiling.
    const otherRows = await stageFile(pool, file, { table: "ingest.stg_other", fileInfo: { ...earlier, rowCount: 5, rowContentSnippets: [["stale"]] } });
    expect(otherRows.fileInfo.rowContentSnippets).not.toContainEqual(["stale"]);
    expect(otherRows.rowCount).toBe(2);
    expect(await stagedRowCount(pool, "ingest.stg_other")).toBe(2);
    // A degrouped staging never takes a file info of the file as it is.
    const grouped = dir.write("qbo-known.csv", QUICKBOOKS_ONLINE_JOURNAL);
    const asIs = await inspectFile(grouped);
    const degrouped = await stageFile(pool, grouped, { table: "ingest.stg_qbo_known", degroup: true, fileInfo: asIs });
    expect(degrouped.fileInfo.degrouped).toBe(true);
    expect(degrouped.fileInfo.rowCount).toBe(7);
  });
});
