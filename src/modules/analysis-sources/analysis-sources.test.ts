import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERP_GENERAL_LEDGER } from "../../../test/ingestion/fixtures.js";
import { analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

let server: TestServer;
let fixture: SourceFixture;
beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server);
});
afterAll(async () => server?.close());

describe("analysis sources", () => {
  it("smoke: general ledger to COMPLETED", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED" });
    console.log(JSON.stringify(source).slice(0, 3000));
    expect(source.workflowState).toBe("COMPLETED");
  });
});
