import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getDMMF } from "@prisma/get-dmmf";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AnalysisResult, AnalysisSource, DataTable, FileInfo, Prisma } from "../src/generated/prisma/client.js";
import type { EngineSpec } from "../src/engine/index.js";
import type { ColumnData, TabularFileInfo, TransactionIdSelection } from "../src/ingestion/index.js";
import type { StoredStage } from "../src/modules/analysis-sources/analysis-source.steps.js";
import type { DataTableColumn } from "../src/modules/data-tables/data-table-definition.js";

const SCHEMA_DIR = new URL("../prisma/schema/", import.meta.url).pathname;

/**
 * Json columns still typed as Prisma's JsonValue: payloads whose shape is the sender's (events,
 * jobs, webhooks), and those of families being reworked elsewhere. A new Json column gets a type.
 */
const UNTYPED = new Set([
  "OutboxEvent.payload",
  "AsyncResult.payload",
  "WebhookEventLog.requestHeaders",
  "WebhookEventLog.responseHeaders",
  "SavedFilter.name",
  "SavedFilter.category",
  "SavedFilter.condition",
  "Population.condition",
  "RiskSegmentationConfig.dashboardFilters",
  "Task.comments",
  "Task.amounts",
  "Task.riskScores",
  "TaskHistory.changes",
]);

describe("Json columns", () => {
  it("each names its type (/// [Type], prisma-json-types-generator) unless listed as untyped", async () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith(".prisma"));
    const dmmf = await getDMMF({ datamodel: files.map((f) => [join(SCHEMA_DIR, f), readFileSync(join(SCHEMA_DIR, f), "utf8")] as [string, string]) });
    if (!("datamodel" in dmmf)) throw new Error(`the Prisma schema does not parse: ${JSON.stringify(dmmf)}`);
    const json = dmmf.datamodel.models.flatMap((m) => m.fields.filter((f) => f.type === "Json").map((f) => ({ name: `${m.name}.${f.name}`, typed: /^\s*\[[^\]]+\]/m.test(f.documentation ?? "") })));
    expect(json.length).toBeGreaterThan(40);
    expect(json.filter((c) => !c.typed && !UNTYPED.has(c.name)).map((c) => c.name)).toEqual([]);
    // An entry of the list that got a type (or went away) leaves the list.
    expect([...UNTYPED].filter((name) => !json.some((c) => c.name === name && !c.typed))).toEqual([]);
  });

  it("reads and writes carry the column's type (checked by tsc: a shape change fails the build)", () => {
    expectTypeOf<AnalysisSource["stage"]>().toEqualTypeOf<StoredStage | null>();
    expectTypeOf<AnalysisSource["fileInfo"]>().toEqualTypeOf<TabularFileInfo | null>();
    expectTypeOf<AnalysisSource["transactionIdSelection"]>().toEqualTypeOf<TransactionIdSelection | null>();
    expectTypeOf<FileInfo["columnData"]>().toEqualTypeOf<ColumnData[]>();
    expectTypeOf<DataTable["columns"]>().toEqualTypeOf<DataTableColumn[]>();
    expectTypeOf<AnalysisResult["spec"]>().toEqualTypeOf<EngineSpec | null>();
    expectTypeOf<Prisma.DataTableCreateManyInput["columns"]>().toEqualTypeOf<DataTableColumn[] | undefined>();
    expectTypeOf<{ rowCount: string }>().not.toMatchTypeOf<StoredStage>();
  });
});
