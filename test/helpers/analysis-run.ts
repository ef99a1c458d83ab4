import { expect } from "vitest";
import { awaitJob, createEngagement } from "./entities.js";
import { analysisFixture, ingest, type SourceFixture } from "./analysis-sources.js";
import type { TestServer } from "./server.js";

/** Verifies the engagement's account mappings (they were inferred from the account descriptions). */
export async function verifyMappings(server: TestServer, engagementId: string): Promise<void> {
  const verified = await server.api.post("/account-mappings/verify", { engagementId });
  expect(verified.status, JSON.stringify(verified.body)).toBeLessThan(300);
}

/** A general ledger analysis (or another type) with one ingested source, mappings verified. */
export async function ledgerAnalysis(server: TestServer, name: string, csv: string, options: { analysisTypeId?: string; fixture?: SourceFixture; sourceBody?: Record<string, unknown> } = {}) {
  const fixture = options.fixture ?? (await analysisFixture(server, name, options.analysisTypeId));
  const { source } = await ingest(server, fixture, csv, { targetWorkflowState: "COMPLETED", ...options.sourceBody });
  expect(source.workflowState, JSON.stringify(source.errors)).toBe("COMPLETED");
  await verifyMappings(server, fixture.engagementId);
  return { ...fixture, sourceId: source.id as string };
}

/** POST /analyses/{id}/run and waits; returns the async result and the result entity. */
export async function runAnalysis(server: TestServer, analysisId: string, expected: "COMPLETE" | "ERROR" = "COMPLETE", timeoutMs = 60_000) {
  const started = await server.api.post(`/analyses/${analysisId}/run`, {});
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body).toMatchObject({ type: "ANALYSIS_RUN", entityType: "ANALYSIS_RESULT", status: "IN_PROGRESS" });
  const job = await awaitJob(server.api, started.body.id, timeoutMs);
  expect(job.status, JSON.stringify(job)).toBe(expected);
  const result = await server.api.get(`/analysis-results/${started.body.entityId}`);
  expect(result.status).toBe(200);
  return { job, asyncResultId: started.body.id as string, result: result.body };
}

/** The result's data table of a logical name. */
export async function resultTable(server: TestServer, analysisResultId: string, logicalName: string) {
  const page = await server.api.post("/data-tables/query?include-unstable-schemas=true&size=50", { analysisResultId, logicalName });
  expect(page.status).toBe(200);
  expect(page.body.totalElements, `${logicalName} of ${analysisResultId}`).toBe(1);
  return page.body.content[0] as { id: string; columns: Array<Record<string, unknown>>; rowCount: number };
}

/** Every row of a data table matching `query` (pages of 2000). */
export async function allRows(server: TestServer, dataTableId: string, query: unknown = {}): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  for (let page = 0; ; page++) {
    const response = await server.api.post(`/data-tables/${dataTableId}/data`, { query, page, pageSize: 2000 });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    rows.push(...response.body.content);
    if (response.body.last) return rows;
  }
}

/** The analysis's configuration copy. */
export async function analysisConfiguration(server: TestServer, analysisId: string) {
  const page = await server.api.post("/analysis-type-configuration/query", { analysisId });
  expect(page.body.totalElements).toBe(1);
  return page.body.content[0];
}

/** PUT the analysis's configuration with `change(configuration)` applied (latest version). */
export async function updateConfiguration(server: TestServer, analysisId: string, body: (current: any) => Record<string, unknown>) {
  const current = await analysisConfiguration(server, analysisId);
  const response = await server.api.put(`/analysis-type-configuration/${current.id}`, { ...body(current), version: current.version });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export { createEngagement };
