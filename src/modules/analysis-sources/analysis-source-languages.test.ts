import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frenchFec, germanLedger, SPANISH_LEDGER } from "../../../test/ingestion/fixtures.js";
import { analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

/**
 * Non-English exports (issue 5 point 4: French, German and Spanish header names; other encodings,
 * delimiters and number formats) from upload to COMPLETED through REST, with no proposed choices:
 * the recommended mappings are applied.
 */
let server: TestServer;
let fixture: SourceFixture;
beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "Languages");
});
afterAll(async () => server?.close());

function mapped(source: { columnMappings: Array<{ field: string; platformField?: string }> }): Record<string, string> {
  return Object.fromEntries(source.columnMappings.filter((m) => m.platformField).map((m) => [m.field, m.platformField!]));
}

async function rowsOf(sourceId: string) {
  const tables = await server.api.post("/data-tables/query", { $and: [{ analysisSourceId: sourceId }, { logicalName: "gl_journal_lines" }] });
  expect(tables.body.content).toHaveLength(1);
  const data = await server.api.post(`/data-tables/${tables.body.content[0].id}/data`, { pageSize: 100 });
  expect(data.status, JSON.stringify(data.body)).toBe(200);
  return data.body.content as Array<Record<string, unknown>>;
}

describe("recommended mappings of non-English headers, to COMPLETED", () => {
  it("a French FEC (Windows-1252, semicolons, yyyyMMdd, decimal comma)", async () => {
    const { source } = await ingest(server, fixture, frenchFec(), { targetWorkflowState: "COMPLETED" });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.fileInfo).toMatchObject({ delimiter: ";", rowCount: 5 });
    expect(mapped(source)).toMatchObject({
      JournalCode: "source",
      EcritureNum: "txid",
      EcritureDate: "effective_date",
      CompteNum: "account",
      CompteLib: "account_description",
      EcritureLib: "memo",
      Debit: "debit",
      Credit: "credit",
      Idevise: "currency",
    });
    const rows = await rowsOf(source.id);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({ txid: "VT000001", effective_date: "2023-01-05", account: "411000", memo: "Facture n°1 – électricité", debit: 123456, credit: 0 });
    expect(rows[2]).toMatchObject({ account: "445710", account_description: "TVA collectée", credit: 20576, amount: -20576 });
  });

  it("a German export (UTF-16LE with BOM, tabs, dd.MM.yyyy, 1.234,56; Soll/Haben)", async () => {
    const { source } = await ingest(server, fixture, germanLedger(), { targetWorkflowState: "COMPLETED" });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.fileInfo).toMatchObject({ delimiter: "\t", rowCount: 5 });
    expect(mapped(source)).toEqual({
      Belegnummer: "txid",
      Buchungsdatum: "effective_date",
      Erfassungsdatum: "entry_date",
      Konto: "account",
      Kontobezeichnung: "account_description",
      Buchungstext: "memo",
      Soll: "debit",
      Haben: "credit",
      Währung: "currency",
      Erfasser: "entered_by",
    });
    const rows = await rowsOf(source.id);
    expect(rows[0]).toMatchObject({ txid: "B-100", effective_date: "2023-01-02", entry_date: "2023-01-03", account: "1200", memo: "Überweisung Müller GmbH", debit: 238000, currency: "EUR" });
    expect(rows[1]).toMatchObject({ account_description: "Erlöse 19 % USt", credit: 200000 });
  });

  it("a Spanish ledger (semicolons, dd/MM/yyyy, decimal comma; Debe/Haber)", async () => {
    const { source } = await ingest(server, fixture, SPANISH_LEDGER, { targetWorkflowState: "COMPLETED" });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    expect(mapped(source)).toEqual({
      Fecha: "effective_date",
      Asiento: "txid",
      Cuenta: "account",
      "Descripción de la cuenta": "account_description",
      Concepto: "memo",
      Debe: "debit",
      Haber: "credit",
      Usuario: "entered_by",
    });
    const rows = await rowsOf(source.id);
    expect(rows.map((r) => [r.txid, r.effective_date, r.amount])).toEqual([
      ["1", "2023-01-03", 151250],
      ["1", "2023-01-03", -151250],
      ["2", "2023-01-25", 80000],
      ["2", "2023-01-25", -80000],
    ]);
  });
});
