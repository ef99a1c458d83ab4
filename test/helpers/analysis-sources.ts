import { expect } from "vitest";
import { SYSTEM_LIBRARY_IDS } from "../../src/modules/catalogue/ids.js";
import { awaitJob, createEngagement } from "./entities.js";
import { postMultipart } from "./multipart.js";
import type { TestServer } from "./server.js";

export const GENERAL_LEDGER_ANALYSIS_TYPE = "4b8360d00000000000000000";
export const GL_SOURCE_TYPE = "4b8361d00000000000000000";
export const FUND_ANALYSIS_TYPE = "4b8360d00000000000000002";
export const FUND_GL_SOURCE_TYPE = "4b8361d00000000000000001";

export interface SourceFixture {
  engagementId: string;
  analysisId: string;
  periodId: string;
}

/** An engagement with a general ledger analysis for 2023, through the REST API. */
export async function analysisFixture(server: TestServer, name = "Ingestion", analysisTypeId = GENERAL_LEDGER_ANALYSIS_TYPE): Promise<SourceFixture> {
  const engagement = analysisTypeId === FUND_ANALYSIS_TYPE ? await fundEngagement(server, name) : await createEngagement(server.api, name);
  const analysis = await server.api.post("/analyses", {
    engagementId: engagement.id,
    analysisTypeId,
    name: `${name} GL`,
    analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }],
  });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  return { engagementId: engagement.id, analysisId: analysis.body.id, periodId: analysis.body.analysisPeriods[0].id };
}

/** An engagement on the system not-for-profit-with-funds library (the fund ledger analysis type). */
async function fundEngagement(server: TestServer, name: string): Promise<{ id: string }> {
  const organization = await server.api.post("/organizations", { name: `${name} org` });
  const engagement = await server.api.post("/engagements", {
    organizationId: organization.body.id,
    name,
    libraryId: SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS,
    accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
  });
  expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
  return engagement.body;
}

/** Uploads a file into the engagement's file manager; returns its id. */
export async function uploadFile(server: TestServer, engagementId: string, name: string, content: string | Buffer): Promise<string> {
  const response = await postMultipart(server.url, server.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId, name } },
    { name: "file", filename: name, contentType: "text/csv", data: typeof content === "string" ? content : new Uint8Array(content) },
  ]);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id;
}

/** POST /analysis-sources; returns the async result (status 200 asserted). */
export async function createSource(server: TestServer, fixture: SourceFixture, fileId: string, body: Record<string, unknown> = {}) {
  const response = await server.api.post("/analysis-sources", {
    engagementId: fixture.engagementId,
    analysisId: fixture.analysisId,
    analysisPeriodId: fixture.periodId,
    analysisSourceTypeId: GL_SOURCE_TYPE,
    fileManagerFileId: fileId,
    ...body,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toMatchObject({ type: "ANALYSIS_SOURCE_INGESTION", entityType: "ANALYSIS_SOURCE", status: "IN_PROGRESS" });
  return response.body as { id: string; entityId: string };
}

/** Waits for the ingestion job and returns the source as GET shows it. */
export async function settle(server: TestServer, asyncResultId: string, expected: "COMPLETE" | "ERROR" = "COMPLETE") {
  const job = await awaitJob(server.api, asyncResultId);
  expect(job.status, JSON.stringify(job)).toBe(expected);
  const source = await server.api.get(`/analysis-sources/${job.entityId}`);
  expect(source.status).toBe(200);
  return { job, source: source.body };
}

/** Uploads, creates and waits: the source as it rests afterwards. */
export async function ingest(server: TestServer, fixture: SourceFixture, content: string | Buffer, body: Record<string, unknown> = {}, expected: "COMPLETE" | "ERROR" = "COMPLETE") {
  const fileId = await uploadFile(server, fixture.engagementId, "ledger.csv", content);
  const started = await createSource(server, fixture, fileId, body);
  return { fileId, ...(await settle(server, started.id, expected)) };
}

/** PUT /analysis-sources/{id} with the latest version; waits for the job. */
export async function advance(server: TestServer, sourceId: string, body: Record<string, unknown>, expected: "COMPLETE" | "ERROR" = "COMPLETE") {
  const current = await server.api.get(`/analysis-sources/${sourceId}`);
  const response = await server.api.put(`/analysis-sources/${sourceId}`, { version: current.body.version, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return settle(server, response.body.id, expected);
}
