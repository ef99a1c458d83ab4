import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { awaitJob } from "../../../test/helpers/entities.js";
import { detailCsv, type DetailRow } from "../../../test/helpers/subledger-ledger.js";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";

/**
 * The end-of-period outstanding payables and receivables tables (spec 2.10
 * `ap_detail_union_open_payables`, `ar_detail_union_open_receivables`): every value of every row
 * against what the detail and the items lists say (partial payments, a payment after the period
 * end, an unapplied credit note, items carried in by the open items list, the closing list's
 * amounts), and AP_/AR_OUTSTANDING_ENTRY tasks made from their rows, one at a time and in bulk,
 * with the 423 while a result is built.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => server?.close());

async function fixture(name: string, analysisTypeId: string): Promise<SourceFixture> {
  const organization = await server.api.post("/organizations", { name: `${name} org` });
  const engagement = await server.api.post("/engagements", { organizationId: organization.body.id, name, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
  const analysis = await server.api.post("/analyses", { engagementId: engagement.body.id, analysisTypeId, name, analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  return { engagementId: engagement.body.id, analysisId: analysis.body.id, periodId: analysis.body.analysisPeriods[0].id };
}

async function source(f: SourceFixture, csv: string, analysisSourceTypeId: string) {
  const ingested = await ingest(server, f, csv, { targetWorkflowState: "COMPLETED", analysisSourceTypeId });
  expect(ingested.source.workflowState, JSON.stringify(ingested.source.errors)).toBe("COMPLETED");
}

function itemsCsv(party: "Vendor" | "Customer", items: Array<[string, string, string, string, string | null, number]>): string {
  return `${party} ID,${party} Name,Invoice ID,Invoice Date,Due Date,Outstanding Amount\n${items.map(([id, name, invoice, invoiceDate, due, cents]) => [id, name, invoice, invoiceDate, due ?? "", (cents / 100).toFixed(2)].join(",")).join("\n")}\n`;
}

function expect400(response: { status: number; body: any }, identifier: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.problems.map((p: { identifier: string }) => p.identifier)).toContain(identifier);
}

const byInvoice = (rows: Array<Record<string, any>>) => Object.fromEntries(rows.map((r) => [r.invoice_id, r]));

describe("accounts payable: ap_detail_union_open_payables", () => {
  let f: SourceFixture;
  let resultId: string;
  let table: { id: string; columns: Array<Record<string, unknown>>; rowCount: number };
  let rows: Array<Record<string, any>>;
  let entries: Array<Record<string, any>>;
  const detail: DetailRow[] = [
    { invoiceId: "INV-100", party: "V01", partyName: "Acme Supplies", type: "Invoice", invoiceDate: "2023-03-01", date: "2023-03-02", amount: 120_050, memo: "Office chairs" },
    { invoiceId: "INV-100", party: "V01", partyName: "Acme Supplies", type: "Payment", invoiceDate: "2023-03-01", date: "2023-05-02", amount: -120_050, memo: "Wire" },
    { invoiceId: "INV-101", party: "V01", partyName: "Acme Supplies", type: "Invoice", invoiceDate: "2023-04-03", date: "2023-04-03", amount: 98_765, memo: "Desks" },
    { invoiceId: "INV-102", party: "V01", partyName: "Acme Supplies", type: "Invoice", invoiceDate: "2023-11-15", date: "2023-11-16", amount: 50_000, memo: "Lamps" },
    { invoiceId: "inv-102", party: "V01", partyName: "Acme Supplies", type: "Payment", invoiceDate: "2023-11-15", date: "2023-12-10", amount: -20_000, memo: "Part payment" },
    { invoiceId: "B-7", party: "V02", partyName: "Bolt & Co", type: "Invoice", invoiceDate: "2023-06-10", date: "2023-06-12", amount: 4_500_000, memo: "Forklift" },
    { invoiceId: "B-7", party: "V02", partyName: "Bolt & Co", type: "Payment", invoiceDate: "2023-06-10", date: "2024-01-05", amount: -4_500_000, memo: "Paid after year end" },
    { invoiceId: "B-8", party: "V02", partyName: "Bolt & Co", type: "Invoice", invoiceDate: "2023-07-10", date: "2023-07-10", amount: 31_415, memo: "Bolts" },
    { invoiceId: "CN-1", party: "V02", partyName: "Bolt & Co", type: "Credit note", invoiceDate: "2023-12-20", date: "2023-12-20", amount: -5_000, memo: "Returned bolts" },
    { invoiceId: "OLD-10", party: "V03", partyName: "Cogs Ltd", type: "Payment", invoiceDate: "2022-12-15", date: "2023-02-01", amount: -10_000, memo: "Settles last year's bill" },
    { invoiceId: "OLD-11", party: "V02", partyName: "Bolt & Co", type: "Payment", invoiceDate: "2022-12-20", date: "2023-03-01", amount: -5_000, memo: "Part of last year's bill" },
  ];

  beforeAll(async () => {
    f = await fixture("Outstanding payables", ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2);
    await source(f, detailCsv("AP", detail), ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL);
    await source(
      f,
      itemsCsv("Vendor", [
        ["V01", "Acme Supplies", "OLD-9", "2022-11-30", "2022-12-30", 77_700],
        ["V03", "Cogs Ltd", "OLD-10", "2022-12-15", null, 10_000],
        ["V02", "Bolt & Co", "OLD-11", "2022-12-20", "2023-01-19", 25_000],
      ]),
      ANALYSIS_SOURCE_TYPE_IDS.OPEN_PAYABLES_LIST,
    );
    await source(
      f,
      itemsCsv("Vendor", [
        ["V01", "Acme Supplies", "INV-101", "2023-04-03", null, 98_765],
        ["V02", "Bolt & Co", "B-7", "2023-06-10", null, 4_500_000],
        ["V01", "Acme Supplies", "OLD-9", "2022-11-30", null, 70_000],
      ]),
      ANALYSIS_SOURCE_TYPE_IDS.CLOSING_PAYABLES_LIST,
    );
    const run = await runAnalysis(server, f.analysisId, "COMPLETE", 120_000);
    resultId = run.result.id;
    table = await resultTable(server, resultId, "ap_detail_union_open_payables");
    rows = await allRows(server, table.id);
    entries = await allRows(server, (await resultTable(server, resultId, "ap_detail_entries")).id);
  }, 240_000);

  it("holds one row per document open at the period end, every value as the sources say", async () => {
    expect(table.rowCount).toBe(7);
    expect(rows.map((r) => [r.rowid, r.vendor_id, r.invoice_id])).toEqual([
      [1, "V01", "INV-101"],
      [2, "V01", "INV-102"],
      [3, "V01", "OLD-9"],
      [4, "V02", "B-7"],
      [5, "V02", "B-8"],
      [6, "V02", "CN-1"],
      [7, "V02", "OLD-11"],
    ]);
    const rowidsOf = (invoice: string) => entries.filter((e) => e.invoice_id.toLowerCase() === invoice.toLowerCase() && e.effective_date <= "2023-12-31").map((e) => String(e.rowid)).sort((a, b) => Number(a) - Number(b));
    const riskOf = (invoice: string) => Math.max(...entries.filter((e) => e.invoice_id.toLowerCase() === invoice.toLowerCase() && e.effective_date <= "2023-12-31").map((e) => e.risk));
    const got = byInvoice(rows);
    const expected: Record<string, Record<string, unknown>> = {
      "INV-101": { vendor_name: "Acme Supplies", invoice_date: "2023-04-03", effective_date: "2023-04-03", due_date: null, memo: "Desks", carried_forward_amount: null, invoiced_amount: 98_765, settled_amount: 0, outstanding_amount: 98_765, closing_list_amount: 98_765, days_outstanding: 272, days_past_due: null, ageing_bucket: "181+", origin: "DETAIL", entries_count: 1 },
      "INV-102": { vendor_name: "Acme Supplies", invoice_date: "2023-11-15", effective_date: "2023-11-16", memo: "Lamps", carried_forward_amount: null, invoiced_amount: 50_000, settled_amount: 20_000, outstanding_amount: 30_000, closing_list_amount: null, days_outstanding: 46, ageing_bucket: "31-60", origin: "DETAIL", entries_count: 2 },
      "OLD-9": { vendor_name: "Acme Supplies", invoice_date: "2022-11-30", effective_date: null, due_date: "2022-12-30", memo: null, carried_forward_amount: 77_700, invoiced_amount: 0, settled_amount: 0, outstanding_amount: 77_700, closing_list_amount: 70_000, days_outstanding: 396, days_past_due: 366, ageing_bucket: "181+", origin: "OPEN_ITEMS_LIST", entries_count: 0, detail_rowids: [], risk: null, risk_level: "UNSCORED" },
      "B-7": { vendor_name: "Bolt & Co", invoice_date: "2023-06-10", effective_date: "2023-06-12", memo: "Forklift", invoiced_amount: 4_500_000, settled_amount: 0, outstanding_amount: 4_500_000, closing_list_amount: 4_500_000, days_outstanding: 204, ageing_bucket: "181+", origin: "DETAIL", entries_count: 1 },
      "B-8": { invoice_date: "2023-07-10", invoiced_amount: 31_415, settled_amount: 0, outstanding_amount: 31_415, closing_list_amount: null, days_outstanding: 174, ageing_bucket: "91-180", origin: "DETAIL", entries_count: 1 },
      "CN-1": { invoice_date: "2023-12-20", memo: "Returned bolts", invoiced_amount: 0, settled_amount: 5_000, outstanding_amount: -5_000, days_outstanding: 11, ageing_bucket: "0-30", origin: "DETAIL", entries_count: 1 },
      "OLD-11": { invoice_date: "2022-12-20", effective_date: "2023-03-01", due_date: "2023-01-19", memo: "Part of last year's bill", carried_forward_amount: 25_000, invoiced_amount: 0, settled_amount: 5_000, outstanding_amount: 20_000, days_outstanding: 376, days_past_due: 346, ageing_bucket: "181+", origin: "BOTH", entries_count: 1 },
    };
    for (const [invoice, values] of Object.entries(expected)) {
      // The data endpoint leaves null values out of a row.
      for (const [key, value] of Object.entries(values)) expect(got[invoice]?.[key], `${invoice} ${key}`).toEqual(value === null ? undefined : value);
      if (got[invoice].origin !== "OPEN_ITEMS_LIST") {
        expect(got[invoice].detail_rowids, invoice).toEqual(rowidsOf(invoice));
        expect(got[invoice].risk, invoice).toBe(riskOf(invoice));
      }
    }
    // Settled by the period end: paid invoices, and the open list's item paid during the year; B-7's payment after the end settles nothing.
    expect(got["INV-100"]).toBeUndefined();
    expect(got["OLD-10"]).toBeUndefined();
    // The control point columns carry the highest score of the document's entries.
    const scored = entries.filter((e) => e.invoice_id === "B-7" && e.effective_date <= "2023-12-31")[0];
    for (const key of Object.keys(scored).filter((k) => k.startsWith("cp_score_"))) expect(got["B-7"][key], key).toBe(scored[key]);
    expect(table.columns.map((c) => c.field)).toEqual(expect.arrayContaining(["outstanding_amount", "ageing_bucket", "days_outstanding", "vendor_id", "risk", "cp_failed"]));
  });

  it("answers the query language like any data table", async () => {
    const old = await allRows(server, table.id, { ageing_bucket: "181+", outstanding_amount: { $gt: 50_000 } });
    expect(old.map((r) => r.invoice_id)).toEqual(["INV-101", "OLD-9", "B-7"]);
    const unreconciled = await allRows(server, table.id, { closing_list_amount: { $ne: null } });
    expect(unreconciled.map((r) => r.invoice_id).sort()).toEqual(["B-7", "INV-101", "OLD-9"]);
  });

  it("an AP_OUTSTANDING_ENTRY task from a row carries the document's vendor, invoice, amounts and scores", async () => {
    const b7 = byInvoice(rows)["B-7"];
    const created = await server.api.post("/tasks", { analysisResultId: resultId, rowId: b7.rowid, type: "AP_OUTSTANDING_ENTRY", tags: ["cut-off"] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const currency = (await server.api.get(`/analyses/${f.analysisId}`)).body.currencyCode;
    expect(created.body).toMatchObject({
      type: "AP_OUTSTANDING_ENTRY",
      rowId: b7.rowid,
      name: `Payables outstanding item ${b7.rowid} (invoice B-7)`,
      vendorName: "Bolt & Co",
      invoiceRef: "B-7",
      description: "Forklift",
      status: "OPEN",
      tags: ["cut-off"],
    });
    expect(created.body.amounts).toEqual({
      outstandingAmount: { amount: 4_500_000, currency },
      invoicedAmount: { amount: 4_500_000, currency },
      settledAmount: { amount: 0, currency },
      closingListAmount: { amount: 4_500_000, currency },
    });
    expect(created.body.riskScores.risk).toBe(b7.risk);
    for (const [key, score] of Object.entries(b7).filter(([k, v]) => k.startsWith("cp_score_") && (v as number) > 0)) expect(created.body.riskScores[key.slice("cp_score_".length)]).toBe(score);
    expect((await server.api.get(`/tasks/${created.body.id}`)).body).toEqual(created.body);
    const again = await server.api.post("/tasks", { analysisResultId: resultId, rowId: b7.rowid, type: "AP_OUTSTANDING_ENTRY" });
    expect(again.status).toBe(409);
    // The same rowid of the entries table is another task.
    const entryTask = await server.api.post("/tasks", { analysisResultId: resultId, rowId: b7.rowid, type: "AP_ENTRY" });
    expect(entryTask.status, JSON.stringify(entryTask.body)).toBe(200);
    expect400(await server.api.post("/tasks", { analysisResultId: resultId, rowId: 99, type: "AP_OUTSTANDING_ENTRY" }), "rowId");
    expect400(await server.api.post("/tasks", { analysisResultId: resultId, rowId: 1, type: "AR_OUTSTANDING_ENTRY" }), "type");
    const tra = await server.api.post("/tasks", { analysisResultId: resultId, rowId: 1, type: "TRA_ENTRY" });
    expect400(tra, "type");
    expect(tra.body.problems[0].suggestedValues.sort()).toEqual(["AP_ENTRY", "AP_OUTSTANDING_ENTRY"]);

    const graph = await server.gql(`query($id: ID!) { analysisResult(id: $id) { tasks(filter: { type: "AP_OUTSTANDING_ENTRY" }) { id type invoiceRef amounts } } }`, { id: resultId });
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.analysisResult.tasks).toEqual([{ id: created.body.id, type: "AP_OUTSTANDING_ENTRY", invoiceRef: "B-7", amounts: created.body.amounts }]);
  });

  it("bulk creation over the outstanding items: every item over 180 days, one job", async () => {
    const started = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "AP_OUTSTANDING_ENTRY", query: { ageing_bucket: "181+" }, tags: ["old-items"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    const made = await server.api.post("/tasks/query?size=100", { analysisResultId: resultId, tags: { $contains: "old-items" } });
    // B-7 already has its task: skipped.
    expect(made.body.content.map((t: Record<string, any>) => [t.type, t.invoiceRef, t.amounts.outstandingAmount.amount]).sort()).toEqual([
      ["AP_OUTSTANDING_ENTRY", "INV-101", 98_765],
      ["AP_OUTSTANDING_ENTRY", "OLD-11", 20_000],
      ["AP_OUTSTANDING_ENTRY", "OLD-9", 77_700],
    ]);
  });

  it("answers 423 for an outstanding item task while the result is being built; the retry succeeds", async () => {
    const started = await server.api.post(`/analyses/${f.analysisId}/run`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const building = started.body.entityId;
    const locked = await server.api.post("/tasks", { analysisResultId: building, rowId: 1, type: "AP_OUTSTANDING_ENTRY" });
    expect((await awaitJob(server.api, started.body.id, 120_000)).status).toBe("COMPLETE");
    expect(locked.status, JSON.stringify(locked.body)).toBe(423);
    expect(locked.body).toMatchObject({ status: 423 });
    const retried = await server.api.post("/tasks", { analysisResultId: building, rowId: 1, type: "AP_OUTSTANDING_ENTRY" });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ analysisResultId: building, invoiceRef: "INV-101", vendorName: "Acme Supplies" });
  }, 180_000);
});

describe("accounts receivable: ar_detail_union_open_receivables", () => {
  it("holds the receivables open at the period end; an AR_OUTSTANDING_ENTRY task carries the customer", async () => {
    const f = await fixture("Outstanding receivables", ANALYSIS_TYPE_IDS.ACCOUNTS_RECEIVABLE_V2);
    const detail: DetailRow[] = [
      { invoiceId: "S-1", party: "C01", partyName: "Delta Retail", type: "Invoice", invoiceDate: "2023-12-01", date: "2023-12-01", amount: 10_000, memo: "Shelves" },
      { invoiceId: "S-1", party: "C01", partyName: "Delta Retail", type: "Receipt", invoiceDate: "2023-12-01", date: "2023-12-15", amount: -4_000, memo: "Deposit" },
      { invoiceId: "S-2", party: "C02", partyName: "Echo Foods", type: "Invoice", invoiceDate: "2023-08-01", date: "2023-08-01", amount: 25_000, memo: "Crates" },
      { invoiceId: "S-2", party: "C02", partyName: "Echo Foods", type: "Receipt", invoiceDate: "2023-08-01", date: "2023-09-01", amount: -25_000, memo: "Paid" },
    ];
    await source(f, detailCsv("AR", detail), ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_RECEIVABLE_DETAIL);
    await source(f, itemsCsv("Customer", [["C03", "Foxtrot Inc", "S-0", "2022-12-01", "2022-12-31", 12_345]]), ANALYSIS_SOURCE_TYPE_IDS.OPEN_RECEIVABLES_LIST);
    const run = await runAnalysis(server, f.analysisId, "COMPLETE", 120_000);
    const table = await resultTable(server, run.result.id, "ar_detail_union_open_receivables");
    const rows = await allRows(server, table.id);
    expect(rows.map((r) => [r.rowid, r.customer_id, r.customer_name, r.invoice_id, r.outstanding_amount, r.ageing_bucket, r.origin, r.closing_list_amount])).toEqual([
      [1, "C01", "Delta Retail", "S-1", 6_000, "0-30", "DETAIL", undefined],
      [2, "C03", "Foxtrot Inc", "S-0", 12_345, "181+", "OPEN_ITEMS_LIST", undefined],
    ]);
    expect(rows[1]).toMatchObject({ days_outstanding: 395, days_past_due: 365, due_date: "2022-12-31" });
    expect(table.columns.some((c) => c.field === "vendor_id")).toBe(false);

    const created = await server.api.post("/tasks", { analysisResultId: run.result.id, rowId: 2, type: "AR_OUTSTANDING_ENTRY" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const currency = (await server.api.get(`/analyses/${f.analysisId}`)).body.currencyCode;
    expect(created.body).toMatchObject({ type: "AR_OUTSTANDING_ENTRY", rowId: 2, name: "Receivables outstanding item 2 (invoice S-0)", customerName: "Foxtrot Inc", invoiceRef: "S-0" });
    expect(created.body.amounts).toEqual({ outstandingAmount: { amount: 12_345, currency }, carriedForwardAmount: { amount: 12_345, currency }, invoicedAmount: { amount: 0, currency }, settledAmount: { amount: 0, currency } });
    expect(created.body.riskScores).toEqual({});
    expect(created.body.vendorName).toBeUndefined();
    expect400(await server.api.post("/tasks", { analysisResultId: run.result.id, rowId: 1, type: "AP_OUTSTANDING_ENTRY" }), "type");
  }, 240_000);
});
