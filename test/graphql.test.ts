import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERAL_LEDGER_ANALYSIS_TYPE } from "./helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/** A token with exactly these permissions (its secret, for `server.gql`). */
async function tokenWith(permissions: string[]): Promise<string> {
  const created = await server.api.post("/api-tokens", { name: "relation test", permissions, allowedAddresses: [] });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.token;
}

/** Runs `work` and returns the SQL statements the server sent through its pool meanwhile (Prisma's too). */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const pool = server.running.app.pool;
  const original = pool.query;
  const seen: string[] = [];
  pool.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    seen.push(typeof first === "string" ? first : (first?.text ?? ""));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  try {
    await work();
  } finally {
    pool.query = original;
  }
  return seen;
}

/** POSTs a JSON body exactly as written (duplicate keys and big integer literals survive). */
async function rawGraphql(text: string) {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${server.token}` },
    body: text,
  });
  return { status: response.status, body: (await response.json()) as any };
}

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

  it("gives errors GraphQL raises itself (syntax, validation, variables that do not coerce) the same extensions", async () => {
    const problem = { code: "VALIDATION", status: 400, problems: [expect.objectContaining({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", reason: expect.any(String) })] };
    const syntax = await server.gql(`{ organizations( }`);
    expect(syntax.body.errors[0].extensions).toMatchObject({ ...problem, graphqlCode: "GRAPHQL_PARSE_FAILED" });
    const unknownField = await server.gql(`{ organizations { totalElements colour } }`);
    expect(unknownField.body.errors[0].extensions).toMatchObject({ ...problem, graphqlCode: "GRAPHQL_VALIDATION_FAILED" });
    const variables = await server.gql(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, { input: { name: "X", colour: "red" } });
    expect(variables.body.errors[0].message).toContain("colour");
    expect(variables.body.errors[0].extensions).toMatchObject(problem);
  });

  it("relation lists take the child's filter and sort (Organization.engagements), answered per response in one batch", async () => {
    const orgs: string[] = [];
    for (const name of ["Rel A", "Rel B"]) {
      const org = await server.api.post("/organizations", { name });
      orgs.push(org.body.id);
      for (const [engagement, industry] of [["Alpha audit", "Retail"], ["Beta audit", "Mining"], ["Gamma review", "Retail"]]) {
        const created = await server.api.post("/engagements", {
          organizationId: org.body.id,
          name: `${engagement} ${name}`,
          industry,
          accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
      }
    }
    const query = `query($f: JSON, $o: JSON) { organizations(filter: $o, sort: ["name"]) { content { name
      all: engagements { name }
      retail: engagements(filter: $f, sort: ["name,desc"]) { name industry } } } }`;
    const result = await server.gql(query, { o: { id: { $in: orgs } }, f: { industry: "RETAIL", name: { $niprefix: "gamma" } } });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.organizations.content).toEqual([
      { name: "Rel A", all: expect.any(Array), retail: [{ name: "Alpha audit Rel A", industry: "Retail" }] },
      { name: "Rel B", all: expect.any(Array), retail: [{ name: "Alpha audit Rel B", industry: "Retail" }] },
    ]);
    for (const [index, org] of ["Rel A", "Rel B"].entries()) {
      const names = result.body.data.organizations.content[index].all.map((e: { name: string }) => e.name);
      expect(names.sort()).toEqual([`Alpha audit ${org}`, `Beta audit ${org}`, `Gamma review ${org}`]);
    }
    const sorted = await server.gql(`query($o: JSON) { organizations(filter: $o) { content { engagements(sort: ["name,desc"], filter: { industry: "retail" }) { name } } } }`, { o: { id: orgs[0] } });
    expect(sorted.body.data.organizations.content[0].engagements.map((e: { name: string }) => e.name)).toEqual(["Gamma review Rel A", "Alpha audit Rel A"]);

    // The same validation as POST /engagements/query: 400 naming the key.
    const bad = await server.gql(`query($o: JSON) { organizations(filter: $o) { content { engagements(filter: { colour: "red" }) { name } } } }`, { o: { id: orgs[0] } });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(bad.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "colour", problemType: "FILTER_CONVERSION_FAILED" });
    const badSort = await server.gql(`query($o: JSON) { organizations(filter: $o) { content { engagements(sort: ["colour"]) { name } } } }`, { o: { id: orgs[0] } });
    expect(badSort.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "sort[0]" });
  });

  it("Engagement.analyses takes the analysis filter and sort, Analysis.engagement resolves back, each one batch per response", async () => {
    const org = await server.api.post("/organizations", { name: "Analyses relation org" });
    const engagements: string[] = [];
    for (const name of ["Eng 1", "Eng 2", "Eng 3", "Eng 4"]) {
      const engagement = await server.api.post("/engagements", { organizationId: org.body.id, name, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
      expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
      engagements.push(engagement.body.id);
      for (const [analysis, interim] of [["Alpha", false], ["Beta", true], ["Gamma", false]] as const) {
        const created = await server.api.post("/analyses", {
          engagementId: engagement.body.id,
          analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE,
          name: `${analysis} ${name}`,
          interim,
          analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31", ...(interim ? { interimAsAtDate: "2023-06-30" } : {}) }],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
      }
    }

    const one = await server.gql(`query($id: ID!, $f: JSON) { engagement(id: $id) { name
      all: analyses { name engagementId }
      annual: analyses(filter: $f, sort: ["name,desc"]) { name interim engagement { id name } } } }`, { id: engagements[0], f: { interim: false } });
    expect(one.body.errors, JSON.stringify(one.body.errors)).toBeUndefined();
    const { all, annual } = one.body.data.engagement;
    expect(all.map((a: { name: string }) => a.name).sort()).toEqual(["Alpha Eng 1", "Beta Eng 1", "Gamma Eng 1"]);
    expect(all.every((a: { engagementId: string }) => a.engagementId === engagements[0])).toBe(true);
    expect(annual).toEqual([
      { name: "Gamma Eng 1", interim: false, engagement: { id: engagements[0], name: "Eng 1" } },
      { name: "Alpha Eng 1", interim: false, engagement: { id: engagements[0], name: "Eng 1" } },
    ]);

    // The same validation as POST /analyses/query: 400 naming the key.
    const bad = await server.gql(`query($id: ID!) { engagement(id: $id) { analyses(filter: { colour: "red" }) { name } } }`, { id: engagements[0] });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(bad.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "colour", problemType: "FILTER_CONVERSION_FAILED" });

    // Many engagements with their analyses (and each analysis's engagement): one statement for the
    // analyses of all engagements, one for their engagements, however many engagements are listed.
    const many = `query($e: JSON) { engagements(filter: $e, sort: ["name"]) { content { name analyses(sort: ["name"]) { name engagement { name } } } } }`;
    const analysisStatements = (statements: string[]) => statements.filter((s) => s.includes(`FROM "analysis" t WHERE t."engagement_id" = ANY(`)).length;
    const engagementStatements = (statements: string[]) => statements.filter((s) => s.includes(`FROM "public"."engagement" WHERE`)).length;
    let result: Awaited<ReturnType<typeof server.gql>> | undefined;
    const forTwo = await statementsDuring(async () => (result = await server.gql(many, { e: { id: { $in: engagements.slice(0, 2) } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    const forFour = await statementsDuring(async () => (result = await server.gql(many, { e: { id: { $in: engagements } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    expect(result!.body.data.engagements.content.map((e: { name: string; analyses: Array<{ name: string; engagement: { name: string } }> }) => [e.name, e.analyses.map((a) => `${a.name}/${a.engagement.name}`)])).toEqual(
      ["Eng 1", "Eng 2", "Eng 3", "Eng 4"].map((name) => [name, ["Alpha", "Beta", "Gamma"].map((a) => `${a} ${name}/${name}`)]),
    );
    expect(analysisStatements(forFour)).toBe(1);
    expect(analysisStatements(forTwo)).toBe(1);
    expect(engagementStatements(forFour)).toBe(1);
    expect(engagementStatements(forTwo)).toBe(1);
  });

  it("relation fields need their target's read permission (FORBIDDEN on the field otherwise)", async () => {
    const org = await server.api.post("/organizations", { name: "Forbidden relations org" });
    const engagement = await server.api.post("/engagements", { organizationId: org.body.id, name: "Forbidden relations", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    const analysis = await server.api.post("/analyses", {
      engagementId: engagement.body.id,
      analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE,
      name: "Forbidden GL",
      analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }],
    });
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);

    const engagementsOnly = await tokenWith(["api.engagements.read"]);
    const noAnalyses = await server.gql(`query($id: ID!) { engagement(id: $id) { name analyses { id } } }`, { id: engagement.body.id }, engagementsOnly);
    expect(noAnalyses.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(noAnalyses.body.errors?.[0].path).toEqual(["engagement", "analyses"]);
    expect((await server.gql(`query($id: ID!) { engagement(id: $id) { name } }`, { id: engagement.body.id }, engagementsOnly)).body.data.engagement.name).toBe("Forbidden relations");

    const analysesOnly = await tokenWith(["api.analyses.read"]);
    const noEngagement = await server.gql(`query($id: ID!) { analysis(id: $id) { name engagement { id } } }`, { id: analysis.body.id }, analysesOnly);
    expect(noEngagement.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(noEngagement.body.errors?.[0].path).toEqual(["analysis", "engagement"]);
    const noSources = await server.gql(`query($id: ID!) { analysis(id: $id) { name analysisSources { id } } }`, { id: analysis.body.id }, analysesOnly);
    expect(noSources.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(noSources.body.errors?.[0].path).toEqual(["analysis", "analysisSources"]);

    const both = await tokenWith(["api.analyses.read", "api.engagements.read"]);
    const allowed = await server.gql(`query($id: ID!) { analysis(id: $id) { engagement { name analyses { name } } } }`, { id: analysis.body.id }, both);
    expect(allowed.body.errors, JSON.stringify(allowed.body.errors)).toBeUndefined();
    expect(allowed.body.data.analysis.engagement).toEqual({ name: "Forbidden relations", analyses: [{ name: "Forbidden GL" }] });
  });

  it("AccountGrouping.groups keeps tree order by default and takes the account group filter", async () => {
    const system = "5cc9076887f13cb8a7a19300";
    const all = await server.gql(`{ accountGrouping(id: "${system}") { groups { code orderIndex } } }`);
    const orderIndexes = all.body.data.accountGrouping.groups.map((g: { orderIndex: number }) => g.orderIndex);
    expect(orderIndexes).toEqual([...orderIndexes].sort((a, b) => a - b));
    const filtered = await server.gql(`query($f: JSON) { accountGrouping(id: "${system}") { groups(filter: $f, sort: ["code,desc"]) { code lowestLevel } } }`, {
      f: { lowestLevel: true, code: { $iprefix: "1" } },
    });
    expect(filtered.body.errors).toBeUndefined();
    const viaRest = await server.api.post("/account-groups/query?size=2000&sort=code,desc", { accountGroupingId: system, lowestLevel: true, code: { $iprefix: "1" } });
    expect(viaRest.body.totalElements).toBeGreaterThan(0);
    expect(filtered.body.data.accountGrouping.groups.map((g: { code: string }) => g.code)).toEqual(viaRest.body.content.map((g: { code: string }) => g.code));
  });

  it("refuses duplicate keys in a JSON body of /api/graphql (spec 4.2 rule 2), naming the key", async () => {
    const text = `{"query":"query($f: JSON) { organizations(filter: $f) { totalElements } }","variables":{"f":{"name":"a","name":"b"}}}`;
    const response = await rawGraphql(text);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(response.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "variables.f.name", values: ["name"] });
    expect(response.body.errors[0].extensions.http).toBeUndefined();
    expect((await rawGraphql(`{"query":"{ organizations { totalElements } }","query":"{ __typename }"}`)).status).toBe(400);
    expect((await rawGraphql(`{"query": `)).status).toBe(400);
    // Without duplicates the same body runs.
    const fine = await rawGraphql(`{"query":"query($f: JSON) { organizations(filter: $f) { totalElements } }","variables":{"f":{"name":"a"}}}`);
    expect(fine.status).toBe(200);
    expect(fine.body.data.organizations.totalElements).toBe(0);
  });

  it("compares INT64 columns exactly with literals beyond 2^53, from variables and inline", async () => {
    const max = await rawGraphql(`{"query":"query($f: JSON) { organizations(filter: $f) { totalElements } }","variables":{"f":{"version":{"$lte":9223372036854775807}}}}`);
    expect(max.body.errors, JSON.stringify(max.body.errors)).toBeUndefined();
    expect(max.body.data.organizations.totalElements).toBeGreaterThan(0);
    const inline = await server.gql(`{ organizations(filter: { version: 9223372036854775807 }) { totalElements } }`);
    expect(inline.body.errors, JSON.stringify(inline.body.errors)).toBeUndefined();
    expect(inline.body.data.organizations.totalElements).toBe(0);
    const over = await rawGraphql(`{"query":"query($f: JSON) { organizations(filter: $f) { totalElements } }","variables":{"f":{"version":9223372036854775808}}}`);
    expect(over.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "version", values: ["9223372036854775808"] });
    expect(over.body.errors[0].extensions.problems[0].reason).toMatch(/\[-9223372036854775808, 9223372036854775807\]/);
  });

  it("prices documents by page sizes multiplied through the nesting: a four-level tree and 60 aliased counts fit, a runaway is refused", async () => {
    const tree = (size: string) =>
      `query${size.startsWith("$") ? "($s: Int)" : ""} { organizations(size: ${size}) { totalElements content { id engagements { id analyses { id analysisSources { id analysisSourceTypeId } } } } } }`;
    expect((await server.api.post("/organizations", { name: "Priced org" })).status).toBe(200);
    // 20 + 20*20 + 20*20*20 + 20*20*20*20 = 168,420 items counted: within the limit.
    const accepted = await server.gql(tree("20"));
    expect(accepted.body.errors, JSON.stringify(accepted.body.errors)).toBeUndefined();
    expect(accepted.body.data.organizations.totalElements).toBeGreaterThan(0);
    const viaVariable = await server.gql(tree("$s"), { s: 20 });
    expect(viaVariable.body.errors, JSON.stringify(viaVariable.body.errors)).toBeUndefined();

    // The same tree under 2000 organizations is refused before it runs, written inline (a
    // validation error) or through a variable (priced with the request's variables).
    for (const refused of [await server.gql(tree("2000")), await server.gql(tree("$s"), { s: 2000 })]) {
      expect(refused.body.data ?? undefined).toBeUndefined();
      expect(refused.body.errors[0].message).toMatch(/may return 16842000 items and field calls .*at most 500000/);
      expect(refused.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    }
    // `first` bounds a relation list, and the price follows it.
    const bounded = await server.gql(`{ organizations(size: 2000) { content { engagements(first: 2) { analyses(first: 2) { analysisSources(first: 2) { id } } } } } }`);
    expect(bounded.body.errors, JSON.stringify(bounded.body.errors)).toBeUndefined();
    const cyclic = `{ organizations(size: 100) { content { ${"engagements { organization { ".repeat(4)}id${" } }".repeat(4)} } } }`;
    expect((await server.gql(cyclic)).body.errors[0].message).toMatch(/at most 500000/);

    // Data table pages count their pageSize (inline or in the input variable): 300 aliased pages of 2000 rows are refused.
    const pages = Array.from({ length: 300 }, (_, i) => `p${i}: dataTableData(id: $id, input: $i) { numberOfElements }`).join(" ");
    const manyPages = await server.gql(`query($id: ID!, $i: DataTableDataInput) { ${pages} }`, { id: "0123456789abcdef01234567", i: { pageSize: 2000 } });
    expect(manyPages.body.errors[0].message).toMatch(/may return 600000 items/);

    // A dashboard: 60 aliased counts in one document.
    const counts = Array.from({ length: 60 }, (_, i) => `c${i}: engagements(filter: $f${i % 2}, size: 1) { totalElements }`).join(" ");
    const dashboard = await server.gql(`query($f0: JSON, $f1: JSON) { ${counts} }`, { f0: {}, f1: { name: { $iprefix: "zzz-none" } } });
    expect(dashboard.body.errors, JSON.stringify(dashboard.body.errors)).toBeUndefined();
    expect(Object.keys(dashboard.body.data)).toHaveLength(60);
    expect(dashboard.body.data.c1.totalElements).toBe(0);

    const introspection = await server.gql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }));
    expect(introspection.body.errors).toBeUndefined();
    expect(introspection.body.data.__schema.types.length).toBeGreaterThan(50);
  });

  it("serves GraphiQL to browsers", async () => {
    const response = await fetch(`${server.url}/api/graphql`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toMatch(/graphiql/i);
    // Self-contained: a self-hosted install without internet can use it.
    expect(page).not.toMatch(/unpkg\.com|cdn\.jsdelivr/);
    expect(page).toContain("Ledger analytics API");
  });
});

describe("GraphQL on graphql-jit", () => {
  // Documents run compiled (graphql-jit), in this process as in the built server; shapes the
  // compiler gets wrong run on graphql-js instead (src/graphql/documents.ts, jitWouldMisrun).
  it("honours variables inside an inline filter literal", async () => {
    const compiledBefore = server.running.graphqlDocuments.compiled;
    for (const name of ["Inline A", "Inline B", "Inline C"]) {
      const created = await server.gql(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id name } }`, { input: { name } });
      expect(created.body.errors).toBeUndefined();
    }
    // The mutation ran compiled: this process takes the same path as the built server.
    expect(server.running.graphqlDocuments.compiled).toBe(compiledBefore + 1);
    const filtered = await server.gql(`query($n: String) { organizations(filter: { name: $n }) { totalElements content { name } } }`, { n: "Inline B" });
    expect(filtered.body.data.organizations).toEqual({ totalElements: 1, content: [{ name: "Inline B" }] });
    expect(server.running.graphqlDocuments.compiled).toBe(compiledBefore + 1);
  });
});
