import { newId } from "../../src/core/ids.js";
import { inTransaction } from "../../src/events/outbox.js";
import {
  applyColumnMappings,
  buildParsePlan,
  entriesTableCreated,
  entriesTableDropped,
  ingestionTables,
  parseEntries,
  profileVirtualColumns,
  placeVirtualColumns,
  stageFile,
  type ColumnDefinition,
} from "../../src/ingestion/index.js";
import type { ProposedColumnMapping } from "../../src/ingestion/mapping/model.js";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS } from "../../src/modules/catalogue/ids.js";
import { GENERAL_LEDGER_COLUMNS } from "../ingestion/definitions.js";
import { FixtureDir } from "../ingestion/fixtures.js";
import { createEngagement } from "./entities.js";
import type { TestServer } from "./server.js";

export interface ParsedSource {
  engagementId: string;
  analysisId: string;
  analysisSourceId: string;
  /** The physical entries table (for test set-up only; assertions go through the API). */
  table: string;
}

/**
 * STAND-IN for the analysis source workflow (issue 5 points 1-7), which is not on this branch:
 * creates an engagement and analysis through REST, runs the ingestion engine on `content` (stage,
 * recommended or proposed mapping, parse into `ingest.entries_<sourceId>`) and then calls the
 * `entriesTableCreated` hook in a transaction, exactly as the workflow does after PARSE. Once the
 * workflow is merged, tests can create the source through `POST /analysis-sources` with
 * `targetWorkflowState: COMPLETED` instead and keep every assertion unchanged.
 */
export async function parseIntoEntriesTable(
  server: TestServer,
  content: string,
  options: {
    analysisSourceTypeId?: string;
    columnDefinitions?: ColumnDefinition[];
    proposedColumnMappings?: ProposedColumnMapping[];
    analysis?: { engagementId: string; analysisId: string };
    analysisSourceId?: string;
  } = {},
): Promise<ParsedSource> {
  const { app } = server.running;
  const dir = new FixtureDir();
  try {
    let analysis = options.analysis;
    if (!analysis) {
      const engagement = await createEngagement(server.api, `Data tables ${newId().slice(-6)}`);
      const created = await server.api.post("/analyses", {
        engagementId: engagement.id,
        analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER,
        name: "Ledger",
        analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }],
      });
      if (created.status !== 200) throw new Error(`creating an analysis failed: ${JSON.stringify(created.body)}`);
      analysis = { engagementId: engagement.id, analysisId: created.body.id };
    }
    const analysisSourceId = options.analysisSourceId ?? newId();
    const tables = ingestionTables(analysisSourceId);
    const definitions = options.columnDefinitions ?? GENERAL_LEDGER_COLUMNS;
    const staged = await stageFile(app.pool, dir.write("ledger.csv", content), { table: tables.staging, columnDefinitions: definitions });
    const virtualColumnData = await profileVirtualColumns(app.pool, tables.staging, staged.fileInfo, placeVirtualColumns([], staged.fileInfo.columnData.length));
    const { applied } = applyColumnMappings({ fileInfo: staged.fileInfo, columnDefinitions: definitions, virtualColumnData, proposedColumnMappings: options.proposedColumnMappings });
    const plan = buildParsePlan(staged.fileInfo, applied, definitions, virtualColumnData, staged.columns);
    const parsed = await parseEntries(app.pool, { staging: tables.staging, target: tables.entries, plan, columnNames: staged.columns.map((c) => c.name) });
    const user = await server.api.get("/users/current");
    await inTransaction(app, (tx, emit) =>
      entriesTableCreated(tx, emit, { userId: user.body.id, userName: user.body.userName }, {
        analysisId: analysis.analysisId,
        analysisSourceId,
        analysisSourceTypeId: options.analysisSourceTypeId ?? ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL,
        engagementId: analysis.engagementId,
        table: parsed.table,
        columns: parsed.columns,
        rowCount: parsed.rowCount,
      }),
    );
    return { ...analysis, analysisSourceId, table: tables.entries };
  } finally {
    dir.remove();
  }
}

/** STAND-IN for deleting an analysis source: drops its entries table and calls `entriesTableDropped`. */
export async function dropEntriesTable(server: TestServer, source: ParsedSource): Promise<void> {
  const { app } = server.running;
  const user = await server.api.get("/users/current");
  await inTransaction(app, async (tx, emit) => {
    await tx.$executeRawUnsafe(`DROP TABLE IF EXISTS ${source.table}`);
    await entriesTableDropped(tx, emit, { userId: user.body.id, userName: user.body.userName }, { analysisId: source.analysisId, analysisSourceId: source.analysisSourceId });
  });
}
