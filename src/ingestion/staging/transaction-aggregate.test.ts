import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneralLedgerCsv } from "../../../test/helpers/gl-generator.js";
import { createTestDatabase } from "../../../test/helpers/database.js";
import { GENERAL_LEDGER_COLUMNS } from "../../../test/ingestion/definitions.js";
import { ERP_GENERAL_LEDGER, FixtureDir, SIGNED_AMOUNT_LEDGER } from "../../../test/ingestion/fixtures.js";
import type { TransactionIdSelection } from "../analysis/transaction-keys.js";
import { applyColumnMappings } from "../mapping/apply.js";
import { buildParsePlan } from "../sql/parse-plan.js";
import { aggregateServes, buildTransactionsFromAggregate, buildTransactionsFromStaging } from "../transactions/transactions-table.js";
import { adoptStagingTable, dropTables, stageFile } from "./stage.js";

// The transactions summed while staging must be, value for value, those the SQL grouping of the
// staged rows gives, through the worker thread and on the staging thread alike; anything the
// aggregate cannot be exact about must leave it out rather than approximate.
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

let n = 0;
async function stageAndPlan(file: string, parallel: boolean) {
  const staging = `ingest.stg_agg${++n}`;
  const staged = await stageFile(pool, file, { table: staging, parallel });
  const { applied } = applyColumnMappings({ fileInfo: staged.fileInfo, columnDefinitions: GENERAL_LEDGER_COLUMNS, virtualColumnData: [] });
  const plan = buildParsePlan(staged.fileInfo, applied, GENERAL_LEDGER_COLUMNS, [], staged.columns);
  return { staging, staged, plan };
}

async function both(staging: string, plan: ReturnType<typeof buildParsePlan>, aggregate: NonNullable<Awaited<ReturnType<typeof stageFile>>["aggregate"]>, selection: TransactionIdSelection) {
  const fromSql = await buildTransactionsFromStaging(pool, { staging, target: `${staging}_txsql`, plan, transactionIdSelection: selection });
  const fromAggregate = await buildTransactionsFromAggregate(pool, { staging, target: `${staging}_txagg`, plan, aggregate });
  expect(fromAggregate).not.toBeNull();
  expect(fromAggregate!.columns).toEqual(fromSql.columns);
  expect(fromAggregate!.rowCount).toBe(fromSql.rowCount);
  const types = async (t: string) =>
    (await pool.query("SELECT attname, atttypid::regtype::text AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 ORDER BY attnum", [t])).rows;
  expect(await types(`${staging}_txagg`)).toEqual(await types(`${staging}_txsql`));
  const sql = (await pool.query(`SELECT * FROM ${staging}_txsql ORDER BY row_no`)).rows;
  const agg = (await pool.query(`SELECT * FROM ${staging}_txagg ORDER BY row_no`)).rows;
  expect(agg).toEqual(sql);
  return agg;
}

describe("transactions summed while staging", () => {
  for (const parallel of [false, true]) {
    it(`equal the SQL grouping of the staged rows, row for row (${parallel ? "worker thread" : "staging thread"})`, async () => {
      const file = dir.write(`gl-${parallel}.csv`, "");
      const { transactions } = await writeGeneralLedgerCsv(file, 4000, 11);
      const { staging, staged, plan } = await stageAndPlan(file, parallel);
      expect(staged.aggregate).toMatchObject({ key: 0, debit: 6, credit: 7, amount: null, effectiveDate: 2, entryDate: 3, transactions });
      const selection: TransactionIdSelection = { type: "COMBINATION", columnSelection: [0] };
      expect(aggregateServes(staged.aggregate, plan, selection)).toBe(true);
      const rows = await both(staging, plan, staged.aggregate!, selection);
      expect(rows.length).toBe(transactions);
      // Taken over with the staging table, dropped with it.
      expect(await adoptStagingTable(pool, staging, `ingest.stg_adopted${n}`, staged.rowCount)).toBe(true);
      expect((await pool.query(`SELECT count(*)::int AS n FROM ingest.stg_adopted${n}_agg`)).rows[0].n).toBe(transactions);
      await dropTables(pool, [`ingest.stg_adopted${n}`]);
      expect((await pool.query(`SELECT to_regclass('ingest.stg_adopted${n}_agg') AS t`)).rows[0].t).toBeNull();
    });
  }

  it("carry blank and unreadable values as the SQL does (NULL dates, a blank account's line), and serve only their own selection", async () => {
    const { staging, staged, plan } = await stageAndPlan(dir.write("erp.csv", ERP_GENERAL_LEDGER), false);
    expect(staged.aggregate).toMatchObject({ key: 0, transactions: 4 });
    const selection: TransactionIdSelection = { type: "COMBINATION", columnSelection: [0] };
    const rows = await both(staging, plan, staged.aggregate!, selection);
    expect(rows.find((r) => r.txid === "JE1003")).toMatchObject({ entry_count: "2", effective_date: expect.any(Date) });
    expect(aggregateServes(staged.aggregate, plan, { type: "COMBINATION", columnSelection: [0, 1] })).toBe(false);
    expect(aggregateServes(staged.aggregate, plan, { type: "COMBINATION", columnSelection: [0], applySmartSplitter: true })).toBe(false);
    expect(aggregateServes(staged.aggregate, plan, { type: "RUNNING_TOTAL", columnSelection: [] })).toBe(false);
    expect(aggregateServes(staged.aggregate, plan, { type: "COMBINATION", columnSelection: [4] })).toBe(false);
  });

  it("sum a signed amount column, negative amounts as credits", async () => {
    // SIGNED_AMOUNT_LEDGER's amounts mix currency signs and trailing minus: no typed shadow, no aggregate.
    expect((await stageAndPlan(dir.write("mixed.csv", SIGNED_AMOUNT_LEDGER), false)).staged.aggregate).toBeNull();
    const signed = [
      "Txn Date,JE Number,GL Account,Account Name,Amount,Description",
      "01/22/2023,100,1000,Cash,1500.00,Owner contribution",
      "01/22/2023,100,3000,Owner Equity,-1500.00,Owner contribution",
      "02/23/2023,101,6000,Rent,750.00,March rent",
      "02/23/2023,101,1000,Cash,-750.00,March rent",
      "03/24/2023,102,6100,Utilities,99.95,Power",
      "03/24/2023,102,2000,Accounts Payable,-99.95,Power",
    ].join("\n");
    const { staging, staged, plan } = await stageAndPlan(dir.write("signed.csv", signed), false);
    expect(staged.aggregate).toMatchObject({ key: 1, amount: 4, debit: null, credit: null, effectiveDate: 0 });
    if (!staged.aggregate) return;
    const rows = await both(staging, plan, staged.aggregate, { type: "COMBINATION", columnSelection: [1] });
    expect(rows.map((r) => [r.txid, r.debit_total, r.credit_total])).toEqual([
      ["100", "150000", "150000"],
      ["101", "75000", "75000"],
      ["102", "9995", "9995"],
    ]);
  });

  it("are left out when a transaction's lines are not together, or a transaction id is not plain ASCII", async () => {
    const lines = ERP_GENERAL_LEDGER.split("\r\n");
    const apart = [lines[0], lines[1], lines[3], lines[2], ...lines.slice(4)].join("\r\n");
    expect((await stageAndPlan(dir.write("apart.csv", apart), false)).staged.aggregate).toBeNull();
    const padded = ERP_GENERAL_LEDGER.replace("JE1004,1,", " JE1004,1,");
    expect((await stageAndPlan(dir.write("padded.csv", padded), false)).staged.aggregate).toBeNull();
    const accented = ERP_GENERAL_LEDGER.replaceAll("JE1002", "JÉ1002");
    expect((await stageAndPlan(dir.write("accented.csv", accented), true)).staged.aggregate).toBeNull();
  });
});

describe("an aggregate table that lost its rows", () => {
  it("is not used: nothing is built and the caller groups in SQL", async () => {
    const file = dir.write("lost.csv", ERP_GENERAL_LEDGER);
    const { staging, staged, plan } = await stageAndPlan(file, false);
    await pool.query(`TRUNCATE ${staging}_agg`);
    expect(await buildTransactionsFromAggregate(pool, { staging, target: `${staging}_tx`, plan, aggregate: staged.aggregate! })).toBeNull();
    expect((await pool.query(`SELECT to_regclass('${staging}_tx') AS t`)).rows[0].t).toBeNull();
  });
});
