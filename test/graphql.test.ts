import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe("GraphQL", () => {
  it("creates, relates, filters and pages through the same services as REST", async () => {
    const org = await server.gql(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id name version createdUserInfo { userName } } }`, {
      input: { name: "Graph Org" },
    });
    expect(org.body.errors).toBeUndefined();
    const organizationId = org.body.data.createOrganization.id;
    expect(org.body.data.createOrganization).toMatchObject({ name: "Graph Org", version: 0, createdUserInfo: { userName: "(API) App Admin" } });

    const engagement = await server.gql(
      `mutation($input: CreateEngagementInput!) { createEngagement(input: $input) { id organization { name } accountingPeriod { frequency } } }`,
      { input: { organizationId, name: "Graph engagement", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "QUARTERLY" } } },
    );
    expect(engagement.body.errors).toBeUndefined();
    expect(engagement.body.data.createEngagement).toMatchObject({ organization: { name: "Graph Org" }, accountingPeriod: { frequency: "QUARTERLY" } });

    // REST sees what GraphQL wrote.
    expect((await server.api.get(`/engagements/${engagement.body.data.createEngagement.id}`)).body.name).toBe("Graph engagement");

    const page = await server.gql(`query($filter: JSON) { organizations(filter: $filter, size: 5) { totalElements content { name engagements { name } } } }`, {
      filter: { name: { $isubstr: "graph" } },
    });
    expect(page.body.data.organizations).toEqual({ totalElements: 1, content: [{ name: "Graph Org", engagements: [{ name: "Graph engagement" }] }] });

    // `$` cannot start a GraphQL name, so operator filters travel as variables; plain equality can be inline.
    const literal = await server.gql(`{ organizations(filter: { name: "GRAPH ORG" }) { totalElements } }`);
    expect(literal.body.data.organizations.totalElements).toBe(1);
  });

  it("reports typed errors in extensions", async () => {
    const missing = await server.gql(`{ organization(id: "5cc9076887f13cb8a7a19999") { id } }`);
    expect(missing.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const badFilter = await server.gql(`{ organizations(filter: { colour: "red" }) { totalElements } }`);
    expect(badFilter.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(badFilter.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "colour", problemType: "FILTER_CONVERSION_FAILED" });
    const created = await server.gql(`mutation { createOrganization(input: { name: "V" }) { id version } }`);
    const { id } = created.body.data.createOrganization;
    const stale = await server.gql(`mutation { updateOrganization(id: "${id}", input: { name: "W", version: 3 }) { id } }`);
    expect(stale.body.errors[0].extensions).toMatchObject({ code: "CONFLICT", status: 409 });
    const blank = await server.gql(`mutation { createOrganization(input: { name: " " }) { id } }`);
    expect(blank.body.errors[0].extensions.problems[0].identifier).toBe("name");
  });

  it("serves GraphiQL to browsers", async () => {
    const response = await fetch(`${server.url}/api/graphql`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/graphiql/i);
  });
});
