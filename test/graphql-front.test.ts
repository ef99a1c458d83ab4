import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { ANALYSIS_TYPE_IDS } from "../src/modules/catalogue/ids.js";
import { analysisFixture, ingest } from "./helpers/analysis-sources.js";

let server: TestServer;
const engagements: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  const org = await server.api.post("/organizations", { name: "Relations org" });
  for (const name of ["E1", "E2", "E3", "E4"]) {
    const engagement = await server.api.post("/engagements", { organizationId: org.body.id, name, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
    engagements.push(engagement.body.id);
    // A directory with two subdirectories in each engagement.
    const mkdir = async (dirName: string, parent?: string) => {
      const made = await server.gql(`mutation($i: CreateFileManagerDirectoryInput!) { createFileManagerDirectory(input: $i) { id } }`, {
        i: { engagementId: engagement.body.id, name: dirName, ...(parent ? { parentFileManagerEntityId: parent } : {}) },
      });
      expect(made.body.errors, JSON.stringify(made.body.errors)).toBeUndefined();
      return made.body.data.createFileManagerDirectory.id as string;
    };
    const top = await mkdir(`top ${name}`);
    await mkdir(`b ${name}`, top);
    await mkdir(`a ${name}`, top);
  }
});
afterAll(async () => server?.close());

/** The SQL statements the server sent through its pool (Prisma's too) while `work` ran. */
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

describe("relations beside id fields", () => {
  it("walks file manager entries to their engagement, organization, parent and children in batches: as many statements for 12 entries as for 6", async () => {
    const document = `query($f: JSON) { fileManagerEntities(filter: $f, size: 100, sort: ["name"]) { content {
      name engagement { name organization { name } }
      parent { name engagement { name } }
      ... on FileManagerDirectory { children { name parent { name } } } } } }`;
    let result: Awaited<ReturnType<typeof server.gql>> | undefined;
    const forTwo = await statementsDuring(async () => (result = await server.gql(document, { f: { engagementId: { $in: engagements.slice(0, 2) } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    expect(result!.body.data.fileManagerEntities.content).toHaveLength(6);
    const forFour = await statementsDuring(async () => (result = await server.gql(document, { f: { engagementId: { $in: engagements } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    const content = result!.body.data.fileManagerEntities.content as Array<Record<string, any>>;
    expect(content).toHaveLength(12);
    const top = content.find((e) => e.name === "top E3")!;
    expect(top).toMatchObject({ engagement: { name: "E3", organization: { name: "Relations org" } }, parent: null });
    expect(top.children).toEqual([{ name: "a E3", parent: { name: "top E3" } }, { name: "b E3", parent: { name: "top E3" } }]);
    expect(content.find((e) => e.name === "b E4")).toMatchObject({ parent: { name: "top E4", engagement: { name: "E4" } }, children: [] });
    // Each level is one statement for all entries, whatever their number.
    expect(forFour.length).toBe(forTwo.length);
    expect(forFour.length).toBeLessThanOrEqual(12);
  });

  it("bounds relation lists with first (per parent, in the list's order)", async () => {
    const result = await server.gql(`query($f: JSON) { fileManagerEntities(filter: $f, sort: ["name"]) { content { name ... on FileManagerDirectory { children(first: 1, sort: ["name,desc"]) { name } } } } }`, {
      f: { name: { $iprefix: "top" } },
    });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    expect(result.body.data.fileManagerEntities.content.map((e: { name: string; children: Array<{ name: string }> }) => [e.name, e.children.map((c) => c.name)])).toEqual(
      ["E1", "E2", "E3", "E4"].map((n) => [`top ${n}`, [`b ${n}`]]),
    );
    const bad = await server.gql(`{ fileManagerEntities { content { ... on FileManagerDirectory { children(first: 0) { name } } } } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
  });
});

describe("objects beside every id field and reverse lists, batched", () => {
  beforeAll(async () => {
    for (const engagementId of engagements) {
      const analysis = await server.api.post("/analyses", { engagementId, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
      expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
    }
  });

  const document = `query($f: JSON) { engagements(filter: $f, size: 4, sort: ["name"]) { content {
    name libraryId library { id engagements(first: 2) { id } analysisTypeConfigurations(first: 3) { id analysisType { id } } }
    reportingPeriodConfiguration { id } auditors { id } engagementLead { id }
    accountMappings(first: 5) { id } dataTables(first: 5) { id } riskRanges(first: 5) { id library { id } }
    analysisTypeConfigurations(first: 10) { id analysisType { id } engagement { name } library { id } }
    analyses(first: 5) { name analysisTypeId analysisType { id name } latestAnalysisResult { id } reportingPeriodConfiguration { id } results(first: 5) { id } dataTables(first: 5) { id }
      analysisSources(first: 5) { id analysisSourceType { id } dataTables(first: 5) { id } } } } } }`;

  it("walks engagements to their library, analyses, analysis types and reverse lists in statements that do not grow with the engagements (4 against 2)", async () => {
    let result: Awaited<ReturnType<typeof server.gql>> | undefined;
    const forTwo = await statementsDuring(async () => (result = await server.gql(document, { f: { id: { $in: engagements.slice(0, 2) } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    expect(result!.body.data.engagements.content).toHaveLength(2);
    const forFour = await statementsDuring(async () => (result = await server.gql(document, { f: { id: { $in: engagements } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    const content = result!.body.data.engagements.content as Array<Record<string, any>>;
    expect(content.map((e) => e.name)).toEqual(["E1", "E2", "E3", "E4"]);
    for (const engagement of content) {
      expect(engagement.library.id).toBe(engagement.libraryId);
      expect(engagement.library.engagements.length).toBeGreaterThan(0);
      expect(engagement.analyses).toHaveLength(1);
      const [analysis] = engagement.analyses;
      expect(analysis.analysisType).toMatchObject({ id: analysis.analysisTypeId });
      expect(analysis.analysisType.name).toBeTruthy();
      expect(analysis).toMatchObject({ latestAnalysisResult: null, results: [], dataTables: [], analysisSources: [] });
      for (const configuration of engagement.analysisTypeConfigurations) expect(configuration.engagement).toEqual({ name: engagement.name });
    }
    // Each relation costs one statement for every parent of the response, whatever their number
    // (about 20 relation fields here: one statement per parent would add 40 going from 2 to 4).
    // By-id loads are batched per tick, so lists that resolve in different ticks may read the
    // same model in two statements: hence the slack of 2, not 0.
    expect(forFour.length).toBeLessThanOrEqual(forTwo.length + 2);
    expect(forFour.length).toBeLessThanOrEqual(30);
  });

  it("requires the target's read permission on each object field", async () => {
    const created = await server.api.post("/api-tokens", { name: "no analysis types", permissions: ["api.engagements.read", "api.analyses.read", "api.libraries.read"] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const result = await server.gql(`{ analyses(size: 1) { content { name analysisType { id } engagement { library { id } } } } }`, {}, created.body.token);
    expect(result.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(result.body.errors[0].path).toEqual(["analyses", "content", 0, "analysisType"]);
    expect(result.body.data.analyses.content[0].engagement.library.id).toBeTruthy();
  });
});

describe("files walked from analysis sources and back, batched", () => {
  const LEDGER = "Journal ID,Effective Date,Account,Debit,Credit\r\nJE1,01/15/2023,10100,10.00,\r\nJE1,01/15/2023,40100,,10.00\r\n";
  const sources: Array<{ id: string; fileId: string; analysisId: string; periodId: string }> = [];
  beforeAll(async () => {
    const made = await Promise.all(
      ["F1", "F2", "F3", "F4"].map(async (name) => {
        const fixture = await analysisFixture(server, `Files ${name}`);
        const { fileId, source } = await ingest(server, fixture, LEDGER);
        return { id: source.id as string, fileId, analysisId: fixture.analysisId, periodId: fixture.periodId };
      }),
    );
    sources.push(...made);
  });

  const document = `query($f: JSON) { analysisSources(filter: $f, size: 10, sort: ["id"]) { content {
    id fileManagerFileId analysisPeriodId analysisPeriod { id startDate endDate }
    fileManagerFile { id name engagement { name } parent { id } analysisSources { id analysisPeriod { id } } fileInfo { id fileManagerFile { id } } }
    fileInfoVersion(version: ORIGINAL) { id analysisSourceId analysisSource { id fileManagerFile { id } } fileManagerFile { id analysisSources { id } } } } } }`;

  it("walks a source to its file, period and file info, and each of those back to the source, in statements that do not grow with the sources (4 against 2)", async () => {
    let result: Awaited<ReturnType<typeof server.gql>> | undefined;
    const ids = sources.map((s) => s.id).sort();
    const forTwo = await statementsDuring(async () => (result = await server.gql(document, { f: { id: { $in: ids.slice(0, 2) } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    expect(result!.body.data.analysisSources.content).toHaveLength(2);
    const forFour = await statementsDuring(async () => (result = await server.gql(document, { f: { id: { $in: ids } } })));
    expect(result!.body.errors, JSON.stringify(result!.body.errors)).toBeUndefined();
    const content = result!.body.data.analysisSources.content as Array<Record<string, any>>;
    expect(content.map((s) => s.id)).toEqual(ids);
    for (const source of content) {
      const made = sources.find((s) => s.id === source.id)!;
      expect(source.fileManagerFileId).toBe(made.fileId);
      expect(source.analysisPeriod).toEqual({ id: made.periodId, startDate: "2023-01-01", endDate: "2023-12-31" });
      expect(source.fileManagerFile).toMatchObject({ id: made.fileId, name: "ledger.csv", parent: null, analysisSources: [{ id: source.id, analysisPeriod: { id: made.periodId } }] });
      expect(source.fileManagerFile.engagement.name).toMatch(/^Files F[1-4]$/);
      if (source.fileManagerFile.fileInfo) expect(source.fileManagerFile.fileInfo.fileManagerFile).toEqual({ id: made.fileId });
      // The source's own reading of its file: the file info names the source and the file.
      expect(source.fileInfoVersion).toMatchObject({ analysisSourceId: source.id, analysisSource: { id: source.id, fileManagerFile: { id: made.fileId } }, fileManagerFile: { id: made.fileId, analysisSources: [{ id: source.id }] } });
    }
    // One statement per relation level for all sources (by-id loads batch per tick; slack of 2 as above).
    expect(forFour.length).toBeLessThanOrEqual(forTwo.length + 2);
    expect(forFour.length).toBeLessThanOrEqual(20);
  });

  it("walks an async result to the file and analysis it names", async () => {
    const result = await server.gql(`query($f: JSON) { asyncResults(filter: $f, size: 10) { content { entityType analysisSource { id fileManagerFile { id } } fileManagerFile { id } analysis { id } analysisResult { id } } } }`, {
      f: { $and: [{ entityType: "ANALYSIS_SOURCE" }, { entityId: { $in: sources.map((s) => s.id) } }] },
    });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const content = result.body.data.asyncResults.content as Array<Record<string, any>>;
    expect(content.length).toBeGreaterThanOrEqual(4);
    for (const r of content) {
      const made = sources.find((s) => s.id === r.analysisSource.id)!;
      expect(r).toMatchObject({ entityType: "ANALYSIS_SOURCE", analysisSource: { fileManagerFile: { id: made.fileId } }, fileManagerFile: null, analysis: null, analysisResult: null });
    }
  });

  it("walks account mappings to the sources using them, risk groups to their type and ranges, tokens and email subscriptions to their user", async () => {
    const fixture = await analysisFixture(server, "Mappings");
    const { fileId, source } = await ingest(server, fixture, LEDGER, { targetWorkflowState: "COMPLETED" });
    const made = { id: source.id as string, fileId, analysisId: fixture.analysisId };
    const token = await server.gql(`mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { userId user { id email } } }`, { i: { name: "relations", permissions: ["api.users.read"] } });
    expect(token.body.errors, JSON.stringify(token.body.errors)).toBeUndefined();
    const userId = token.body.data.createApiToken.userId as string;
    expect(token.body.data.createApiToken.user.id).toBe(userId);
    const org = await server.api.post("/organizations", { name: "Subscriptions org" });
    const engagement = await server.api.post("/engagements", { organizationId: org.body.id, name: "Subscribed", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
    const subscribed = await server.gql(`mutation($id: ID!, $i: UpdateEngagementInput!) { updateEngagement(id: $id, input: $i) { version } }`, {
      id: engagement.body.id,
      i: { accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" }, emailSubscriptions: [{ userId }], version: engagement.body.version },
    });
    expect(subscribed.body.errors, JSON.stringify(subscribed.body.errors)).toBeUndefined();
    const result = await server.gql(
      `query($e: ID!, $a: ID!, $f: JSON) { engagement(id: $e) { emailSubscriptions { userId user { id } } }
        analysis(id: $a) { engagement { accountMappings(filter: $f) { account usedByAnalysisSources analysisSources { id fileManagerFileId } } } }
        analysisTypeConfigurations(filter: { analysisId: $a }) { content { configuration { riskGroups { analysisTypeId analysisType { id } applicableRiskRanges applicableRanges { id } selectedRiskRange selectedRange { id } } } } } }`,
      { e: engagement.body.id, a: made.analysisId, f: { account: "10100" } },
    );
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    expect(result.body.data.engagement.emailSubscriptions).toEqual([{ userId, user: { id: userId } }]);
    const mappings = result.body.data.analysis.engagement.accountMappings as Array<Record<string, any>>;
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.usedByAnalysisSources).toEqual([made.id]);
    expect(mappings[0]!.analysisSources).toEqual([{ id: made.id, fileManagerFileId: made.fileId }]);
    const groups = result.body.data.analysisTypeConfigurations.content.flatMap((c: any) => c.configuration.riskGroups) as Array<Record<string, any>>;
    expect(groups.length).toBeGreaterThan(0);
    expect(groups.some((g) => g.selectedRiskRange !== null && g.applicableRiskRanges.length > 0)).toBe(true);
    for (const group of groups) {
      expect(group.analysisType).toEqual({ id: group.analysisTypeId });
      expect(group.applicableRanges.map((r: { id: string }) => r.id)).toEqual(group.applicableRiskRanges);
      expect(group.selectedRange).toEqual(group.selectedRiskRange ? { id: group.selectedRiskRange } : null);
    }
  });

  it("needs the file manager's read permission for a source's file", async () => {
    const created = await server.api.post("/api-tokens", { name: "no file manager", permissions: ["api.analysis-sources.read", "api.analyses.read"] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const result = await server.gql(`query($id: ID!) { analysisSource(id: $id) { id analysisPeriod { id } fileManagerFile { id } } }`, { id: sources[0]!.id }, created.body.token);
    expect(result.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(result.body.errors[0].path).toEqual(["analysisSource", "fileManagerFile"]);
    expect(result.body.data.analysisSource.analysisPeriod).toEqual({ id: sources[0]!.periodId });
  });
});

describe("typed where inputs", () => {
  it("filter lists with the generated input, compiled to the query language, beside filter JSON", async () => {
    const result = await server.gql(
      `query($e: [ID!], $f: JSON) {
        tops: fileManagerEntities(where: { name: { iprefix: "TOP" }, engagementId: { in: $e } }, sort: ["name"]) { content { name } }
        either: fileManagerEntities(where: { or: [{ name: { eq: "a e1" } }, { name: { eq: "b e2" } }] }, sort: ["name"]) { content { name } }
        both: engagements(filter: $f, where: { name: { isubstr: "1" } }) { content { name } }
        organizations(where: { name: { iprefix: "relations" } }) { content { engagements(where: { name: { in: ["E2", "E4"] } }, sort: ["name"]) { name } } } }`,
      { e: engagements.slice(0, 2), f: { name: { $iprefix: "e" } } },
    );
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    expect(result.body.data.tops.content.map((e: { name: string }) => e.name)).toEqual(["top E1", "top E2"]);
    expect(result.body.data.either.content.map((e: { name: string }) => e.name)).toEqual(["a E1", "b E2"]);
    expect(result.body.data.both.content.map((e: { name: string }) => e.name)).toEqual(["E1"]);
    expect(result.body.data.organizations.content[0].engagements.map((e: { name: string }) => e.name)).toEqual(["E2", "E4"]);
  });

  it("refuses a wrongly typed value or an operator the column does not allow in validation, before anything runs", async () => {
    for (const document of [`{ organizations(where: { name: { iprefix: 5 } }) { totalElements } }`, `{ organizations(where: { id: { iprefix: "x" } }) { totalElements } }`, `{ organizations(where: { colour: { eq: "red" } }) { totalElements } }`]) {
      const refused = await server.gql(document);
      expect(refused.body.data ?? undefined).toBeUndefined();
      expect(refused.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", graphqlCode: "GRAPHQL_VALIDATION_FAILED", status: 400 });
    }
    // A value of the right GraphQL type that the query language refuses (a date without a zone) is its 400 naming the key.
    const badDate = await server.gql(`{ organizations(where: { creationDate: { gt: "2024-01-01" } }) { totalElements } }`);
    expect(badDate.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(badDate.body.errors[0].extensions.problems[0].identifier).toMatch(/creationDate/);
  });
});


describe("uploads through GraphQL (multipart request convention)", () => {
  const importDocument = `mutation($i: FileManagerPlacementInput!, $file: Upload!) { importFileManagerFile(input: $i, file: $file) { id name extension originalName engagement { name } } }`;
  const send = (form: FormData) => fetch(`${server.url}/api/graphql`, { method: "POST", headers: { authorization: `Bearer ${server.token}`, accept: "application/json" }, body: form });

  it("streams the mapped file part into the file manager through the REST upload's service path", async () => {
    const bytes = "Journal ID,Amount\r\nJE1,10.00\r\nJE2,-10.00\r\n";
    const form = new FormData();
    form.set("operations", JSON.stringify({ query: importDocument, variables: { i: { engagementId: engagements[0] }, file: null } }));
    form.set("map", JSON.stringify({ "0": ["variables.file"] }));
    form.set("0", new Blob([bytes], { type: "text/csv" }), "ledger.csv");
    const response = await send(form);
    const body = (await response.json()) as any;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data.importFileManagerFile).toMatchObject({ name: "ledger", extension: "csv", originalName: "ledger.csv", engagement: { name: "E1" } });
    const download = await fetch(`${server.url}/api/v1/file-manager/${body.data.importFileManagerFile.id}/export`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(bytes);
    // Standard clients (apollo-upload-client) declare file variables as the Upload scalar.
    const introspected = await server.gql(`{ __type(name: "Upload") { kind } mutation: __type(name: "Mutation") { fields { name args { name type { ofType { name } } } } } }`);
    expect(introspected.body.data.__type).toEqual({ kind: "SCALAR" });
    const uploadArgs = (introspected.body.data.mutation.fields as Array<{ name: string; args: Array<{ name: string; type: { ofType: { name: string } | null } }> }>)
      .flatMap((f) => f.args.filter((a) => a.type.ofType?.name === "Upload").map((a) => `${f.name}.${a.name}`))
      .sort();
    expect(uploadArgs).toEqual(["appendJsonTableFromBody.page", "importFileManagerFile.file", "uploadChunkedFilePart.chunk"]);
  });

  it("refuses a map naming a part that was not sent, and a file id not sent in this request", async () => {
    const form = new FormData();
    form.set("operations", JSON.stringify({ query: importDocument, variables: { i: { engagementId: engagements[0] }, file: null } }));
    form.set("map", JSON.stringify({ "1": ["variables.file"] }));
    form.set("0", new Blob(["x"]), "x.csv");
    const missing = (await (await send(form)).json()) as any;
    expect(missing.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(missing.errors[0].extensions.problems[0].identifier).toBe("map.1");

    const forged = await server.gql(importDocument, { i: { engagementId: engagements[0] }, file: "0123456789abcdef01234567" });
    expect(forged.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(forged.body.errors[0].extensions.problems[0].identifier).toBe("file");
  });
});
