import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { analysisFixture, ingest } from "../helpers/analysis-sources.js";
import { journalCsv } from "../helpers/ledger.js";

/** One sample's value from a Prometheus text exposition, by metric name and exact labels. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[3] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[4]);
  }
  return undefined;
}

describe("GET /metrics (METRICS_TOKEN on the API port)", () => {
  let server: TestServer;
  const METRICS_TOKEN = "scrape-secret-123";
  beforeAll(async () => {
    server = await startTestServer({ metricsToken: METRICS_TOKEN });
  });
  afterAll(async () => server?.close());

  const scrape = (token?: string) => fetch(`${server.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("refuses a scrape without the metrics token, or with an API token", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("wrong")).status).toBe(401);
    expect((await scrape(server.token)).status).toBe(401);
  });

  it("reports requests by route template, GraphQL operations, jobs, ingestion rows, queue depth, pool and process", async () => {
    const fixture = await analysisFixture(server, "Metrics");
    const missing = await server.api.get("/organizations/0123456789abcdef01234567");
    expect(missing.status).toBe(404);
    const { source } = await ingest(server, fixture, journalCsv(400), { targetWorkflowState: "COMPLETED" });
    expect(source.workflowState).toBe("COMPLETED");
    await server.gql("query { organizations(size: 1) { totalElements } }");

    const response = await scrape(METRICS_TOKEN);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();

    expect(sample(text, "fap_http_requests_total", { method: "GET", route: "/api/v1/organizations/{organizationId}", status: "404" })).toBe(1);
    expect(sample(text, "fap_http_requests_total", { method: "POST", route: "/api/v1/analysis-sources", status: "200" })).toBe(1);
    expect(sample(text, "fap_http_request_duration_seconds_count", { method: "POST", route: "/api/v1/analyses", status: "200" })).toBe(1);
    expect(sample(text, "fap_graphql_operations_total", { type: "query", operation: "organizations", outcome: "ok" })).toBe(1);
    expect(sample(text, "fap_jobs_total", { type: "ANALYSIS_SOURCE_INGESTION", outcome: "complete" })).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/fap_job_duration_seconds_count\{job="[^"]+",type="ANALYSIS_SOURCE_INGESTION",outcome="complete"\} [1-9]/);
    expect(sample(text, "fap_ingestion_rows_total", { stage: "staged" })).toBe(400);
    expect(sample(text, "fap_ingestion_rows_total", { stage: "parsed" })).toBe(400);
    expect(sample(text, "fap_ingestion_rows_per_second", { stage: "parsed" })).toBeGreaterThan(0);
    expect(sample(text, "fap_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(text).toContain("# TYPE fap_job_queue_depth gauge");
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sample(text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    // The scrape itself is counted under its own route.
    const again = await (await scrape(METRICS_TOKEN)).text();
    expect(sample(again, "fap_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBe(1);
  });
});

describe("METRICS_PORT: a listener of its own", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ metricsPort: 0 });
  });
  afterAll(async () => server?.close());

  it("serves /metrics there without a token, and not on the API port", async () => {
    const port = server.running.metricsPort;
    expect(port).toBeGreaterThan(0);
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("fap_http_requests_total");
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/organizations/query`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });
});
