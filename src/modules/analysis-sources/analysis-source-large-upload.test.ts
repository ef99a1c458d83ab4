import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { writeGeneralLedgerCsv } from "../../../test/helpers/gl-generator.js";
import { analysisFixture, createSource, settle, uploadFile, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { FixtureDir } from "../../../test/ingestion/fixtures.js";
import { WORKER_MIN_BYTES } from "../../ingestion/staging/stage.js";

/**
 * An upload large enough to be read in the staging worker thread (issue 15: uploads of
 * WORKER_MIN_BYTES or more are tokenized, profiled and encoded for COPY off the main thread),
 * ingested to COMPLETED through REST, and every stored value of every entry compared with the
 * file's own line. The smaller files of the other API tests are read on the main thread.
 */
let server: TestServer;
let fixture: SourceFixture;
const dir = new FixtureDir();

beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "Large upload");
});
afterAll(async () => {
  await server?.close();
  dir.remove();
});

/** One CSV line of the generator (quoted fields hold commas and doubled quotes). */
function fields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const close = line.indexOf('"', i);
        value += line.slice(i, close);
        i = close + 1;
        if (line[i] === '"') {
          value += '"';
          i++;
        } else break;
      }
      out.push(value);
      i++;
    } else {
      const comma = line.indexOf(",", i);
      const end = comma === -1 ? line.length : comma;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

const cents = (money: string) => (money === "" ? 0 : Math.round(Number(money.replace(/,/g, "")) * 100));
const isoDate = (us: string) => `${us.slice(6, 10)}-${us.slice(0, 2)}-${us.slice(3, 5)}`;

it("a ledger read in the staging worker is stored exactly, value by value", async () => {
  const path = dir.write("ledger.csv", "");
  const { bytes } = await writeGeneralLedgerCsv(path, 160_000, 7);
  expect(bytes).toBeGreaterThanOrEqual(WORKER_MIN_BYTES);
  const [, ...lines] = readFileSync(path, "utf8").trimEnd().split("\n");

  const fileId = await uploadFile(server, fixture.engagementId, "ledger.csv", readFileSync(path));
  const { source } = await settle(server, (await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" })).id);
  expect(source.errors, JSON.stringify(source.errors)).toEqual([]);
  expect(source.workflowState).toBe("COMPLETED");
  const tables = await server.api.post("/data-tables/query", { $and: [{ analysisSourceId: source.id }, { logicalName: "gl_journal_lines" }] });
  const tableId = tables.body.content[0].id;

  const stored = new Map<string, Record<string, unknown>>();
  let after: string | undefined;
  for (;;) {
    const page = await server.api.post(`/data-tables/${tableId}/data`, { pageSize: 2000, ...(after ? { after } : {}) });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    for (const row of page.body.content) stored.set(`${row.txid}/${row.line_number}`, row);
    if (!page.body.hasNextPage) break;
    after = page.body.endCursor;
  }
  expect(stored.size).toBe(lines.length);

  for (const line of lines) {
    const [txid, lineNumber, effective, entered, account, description, debit, credit, memo, sourceCode, enteredBy, approvedBy, currency] = fields(line);
    const row = stored.get(`${txid}/${lineNumber}`);
    const expected = {
      txid,
      line_number: Number(lineNumber),
      effective_date: isoDate(effective),
      entry_date: isoDate(entered),
      account,
      account_description: description,
      memo,
      source: sourceCode,
      entered_by: enteredBy,
      approved_by: approvedBy,
      currency,
      debit: cents(debit),
      credit: cents(credit),
      amount: cents(debit) - cents(credit),
    };
    if (!row || Object.entries(expected).some(([key, value]) => row[key] !== value)) {
      expect({ ...row, rowid: undefined }, line).toEqual({ ...expected, rowid: undefined });
    }
  }
}, 300_000);
