import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getDMMF } from "@prisma/get-dmmf";
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  AnalysisResult,
  AnalysisSource,
  AsyncResult,
  DataTable,
  FileInfo,
  OutboxEvent,
  Population,
  Prisma,
  RiskSegmentationConfig,
  SavedFilter,
  Task,
  TaskHistory,
  WebhookEventLog,
} from "../src/generated/prisma/client.js";
import type { DomainEvent } from "../src/events/domain-event.js";
import type { FilterJson } from "../src/query-language/index.js";
import type { Condition } from "../src/modules/saved-filters/conditions/condition-check.js";
import type { TaskAmount, TaskComment } from "../src/modules/tasks/task.json-columns.js";
import type { FieldChange } from "../src/modules/tasks/task.history.js";
import type { EngineSpec } from "../src/engine/index.js";
import type { ColumnData, TabularFileInfo, TransactionIdSelection } from "../src/ingestion/index.js";
import type { StoredStage } from "../src/modules/analysis-sources/analysis-source.steps.js";
import type { DataTableColumn } from "../src/modules/data-tables/data-table-definition.js";

const SCHEMA_DIR = new URL("../prisma/schema/", import.meta.url).pathname;

describe("Json columns", () => {
  it("each names its type (/// [Type], prisma-json-types-generator)", async () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith(".prisma"));
    const dmmf = await getDMMF({ datamodel: files.map((f) => [join(SCHEMA_DIR, f), readFileSync(join(SCHEMA_DIR, f), "utf8")] as [string, string]) });
    if (!("datamodel" in dmmf)) throw new Error(`the Prisma schema does not parse: ${JSON.stringify(dmmf)}`);
    const json = dmmf.datamodel.models.flatMap((m) => m.fields.filter((f) => f.type === "Json").map((f) => ({ name: `${m.name}.${f.name}`, typed: /^\s*\[[^\]]+\]/m.test(f.documentation ?? "") })));
    expect(json.length).toBeGreaterThan(40);
    // Payloads whose shape is the sender's (events, jobs) are typed too: as the JSON object they are.
    expect(json.filter((c) => !c.typed).map((c) => c.name)).toEqual([]);
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
    expectTypeOf<Task["comments"]>().toEqualTypeOf<TaskComment[]>();
    expectTypeOf<Task["amounts"]>().toEqualTypeOf<Record<string, TaskAmount>>();
    expectTypeOf<Task["riskScores"]>().toEqualTypeOf<Record<string, number>>();
    expectTypeOf<TaskHistory["changes"]>().toEqualTypeOf<FieldChange[]>();
    expectTypeOf<SavedFilter["name"]>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<SavedFilter["category"]>().toEqualTypeOf<Record<string, string> | null>();
    expectTypeOf<SavedFilter["condition"]>().toEqualTypeOf<Condition | null>();
    expectTypeOf<Population["condition"]>().toEqualTypeOf<Condition | null>();
    expectTypeOf<RiskSegmentationConfig["dashboardFilters"]>().toEqualTypeOf<FilterJson | null>();
    expectTypeOf<WebhookEventLog["requestHeaders"]>().toEqualTypeOf<Record<string, string[]>>();
    expectTypeOf<OutboxEvent["payload"]>().toEqualTypeOf<DomainEvent["payload"]>();
    expectTypeOf<AsyncResult["payload"]>().toEqualTypeOf<{ [key: string]: unknown }>();
  });
});
