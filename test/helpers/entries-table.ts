import { newId } from "../../src/core/ids.js";
import { inTransaction } from "../../src/events/outbox.js";
import {
  applyColumnMappings,
  buildParsePlan,
  buildTransactionsTable,
  entriesTableCreated,
  ingestionTables,
  parseEntries,
  profileVirtualColumns,
  placeVirtualColumns,
  stageFile,
} from "../../src/ingestion/index.js";
import type { ProposedColumnMapping } from "../../src/ingestion/mapping/model.js";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../../src/modules/catalogue/ids.js";
import { GENERAL_LEDGER_COLUMNS } from "../ingestion/definitions.js";
import { FixtureDir } from "../ingestion/fixtures.js";
import { analysisFixture, ingest, type SourceFixture } from "./analysis-sources.js";
import type { TestServer } from "./server.js";

export interface ParsedSource {
  engagementId: string;
  analysisId: string;
  analysisSourceId: string;
  /** The physical entries table (for test set-up only; assertions go through the API). */
  table: string;
}

/**
 * An analysis source ingested through the public API, the way a client does it: upload the file,
 * `POST /analysis-sources` with `targetWorkflowState: COMPLETED` (and the proposed mappings), wait
 * for the async result. The workflow publishes the entries table as a data table.
 */
export async function parseIntoEntriesTable(
  server: TestServer,
  content: string,
  options: {
    analysisSourceTypeId?: string;
    proposedColumnMappings?: ProposedColumnMapping[];
    analysis?: { engagementId: string; analysisId: string };
  } = {},
): Promise<ParsedSource> {
  let fixture: SourceFixture;
  if (options.analysis) {
    const analysis = await server.api.get(`/analyses/${options.analysis.analysisId}`);
    fixture = { ...options.analysis, periodId: analysis.body.analysisPeriods[0].id };
  } else {
    fixture = await analysisFixture(server, `Data tables ${newId().slice(-6)}`);
  }
  const { source } = await ingest(server, fixture, content, {
    targetWorkflowState: "COMPLETED",
    ...(options.analysisSourceTypeId ? { analysisSourceTypeId: options.analysisSourceTypeId } : {}),
    ...(options.proposedColumnMappings ? { proposedColumnMappings: options.proposedColumnMappings } : {}),
  });
  if (source.workflowState !== "COMPLETED") throw new Error(`ingestion stopped at ${source.workflowState}: ${JSON.stringify(source.errors)}`);
  return { engagementId: fixture.engagementId, analysisId: fixture.analysisId, analysisSourceId: source.id, table: ingestionTables(source.id).entries };
}

/**
 * Parses `content` again into an existing source's entries and transactions tables and calls the
 * hook, as the workflow does on a re-parse. The public API has no way to re-parse a COMPLETED source (moves
 * back are refused), so this exercises the seam's contract directly: a second
 * `entriesTableCreated` for the same source replaces its definition.
 */
export async function reparseEntriesTable(server: TestServer, source: ParsedSource, content: string, proposedColumnMappings: ProposedColumnMapping[]): Promise<void> {
  const { app } = server.running;
  const dir = new FixtureDir();
  try {
    const tables = ingestionTables(source.analysisSourceId);
    const definitions = GENERAL_LEDGER_COLUMNS;
    const staged = await stageFile(app.pool, dir.write("ledger.csv", content), { table: tables.staging, columnDefinitions: definitions });
    const virtualColumnData = await profileVirtualColumns(app.pool, tables.staging, staged.fileInfo, placeVirtualColumns([], staged.fileInfo.columnData.length));
    const { applied } = applyColumnMappings({ fileInfo: staged.fileInfo, columnDefinitions: definitions, virtualColumnData, proposedColumnMappings });
    const plan = buildParsePlan(staged.fileInfo, applied, definitions, virtualColumnData, staged.columns);
    const parsed = await parseEntries(app.pool, { staging: tables.staging, target: tables.entries, plan, columnNames: staged.columns.map((c) => c.name) });
    const transactions = await buildTransactionsTable(app.pool, { entries: tables.entries, target: tables.transactions, columns: parsed.columns });
    const user = await server.api.get("/users/current");
    await inTransaction(app, (tx, emit) =>
      entriesTableCreated(tx, emit, { userId: user.body.id, userName: user.body.userName }, {
        analysisId: source.analysisId,
        analysisSourceId: source.analysisSourceId,
        analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL,
        engagementId: source.engagementId,
        table: parsed.table,
        columns: parsed.columns,
        rowCount: parsed.rowCount,
        transactions: { table: transactions.table, columns: transactions.columns, rowCount: transactions.rowCount },
      }),
    );
  } finally {
    dir.remove();
  }
}

/** Deletes the analysis source through the API (which drops its entries table and data table). */
export async function dropEntriesTable(server: TestServer, source: ParsedSource): Promise<void> {
  const response = await server.api.delete(`/analysis-sources/${source.analysisSourceId}`);
  if (response.status !== 204) throw new Error(`deleting source ${source.analysisSourceId}: ${response.status} ${JSON.stringify(response.body)}`);
}
