import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";

// /api/graphql as an HTTP endpoint: src/graphql/http.ts serves JSON requests through the shared
// envelop pipeline and its document cache, and passes everything else on to Yoga.
const BODY_LIMIT = 20_000;
let server: TestServer;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer({ jsonBodyLimit: BODY_LIMIT, maxUploadBytes: BODY_LIMIT }); // multipart file parts are bounded by MAX_UPLOAD_BYTES
  organizationId = (await server.api.post("/organizations", { name: "HTTP org" })).body.id;
});
afterAll(async () => server?.close());

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.token}`, ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function get(params: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/graphql?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${server.token}`, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const documents = () => ({ ...server.running.graphqlDocuments });

describe("/api/graphql over HTTP", () => {
  it("parses, validates and compiles a repeated document once, over POST, GET and REST alike", async () => {
    const query = `query($id: ID!) { organization(id: $id) { id name version } }`;
    const before = documents();
    for (let i = 0; i < 5; i++) {
      const answer = await post(JSON.stringify({ query, variables: { id: organizationId } }));
      expect(JSON.parse(answer.text)).toEqual({ data: { organization: { id: organizationId, name: "HTTP org", version: 0 } } });
    }
    for (let i = 0; i < 3; i++) expect(JSON.parse((await get({ query, variables: JSON.stringify({ id: organizationId }) })).text).data.organization.id).toBe(organizationId);
    // Another variable value is the same document.
    expect(JSON.parse((await post(JSON.stringify({ query, variables: { id: "5cc9076887f13cb8a7a19999" } }))).text).errors[0].extensions.code).toBe("NOT_FOUND");
    // REST routes run documents parsed and validated at start-up.
    for (let i = 0; i < 3; i++) expect((await server.api.get(`/organizations/${organizationId}`)).status).toBe(200);
    expect(documents()).toEqual({ parsed: before.parsed + 1, validated: before.validated + 1, compiled: before.compiled + 2 });

    // A document that does not validate is not validated again either, and answers the same.
    const invalid = JSON.stringify({ query: "{ organizations { totalElements colour } }" });
    const first = await post(invalid);
    expect(await post(invalid)).toMatchObject({ status: first.status, text: first.text });
    expect(JSON.parse(first.text).errors[0].extensions).toMatchObject({ code: "VALIDATION", graphqlCode: "GRAPHQL_VALIDATION_FAILED", status: 400 });
    expect(documents()).toMatchObject({ parsed: before.parsed + 2, validated: before.validated + 2 });
  });

  it("runs the operation named, in a document holding several (compiled per operation)", async () => {
    const query = `query Org($id: ID!) { organization(id: $id) { name } } query Me { currentUser { userName } }`;
    const org = await post(JSON.stringify({ query, operationName: "Org", variables: { id: organizationId } }));
    expect(JSON.parse(org.text)).toEqual({ data: { organization: { name: "HTTP org" } } });
    const me = await post(JSON.stringify({ query, operationName: "Me" }));
    expect(JSON.parse(me.text)).toEqual({ data: { currentUser: { userName: "(API) App Admin" } } });
    const none = await post(JSON.stringify({ query }));
    expect(none.status).toBe(400);
    expect(JSON.parse(none.text).errors[0]).toMatchObject({ message: "Could not determine what operation to execute.", extensions: { code: "VALIDATION", status: 400 } });
  });

  it("reads GET variables as JSON bodies are read, and refuses mutations over GET", async () => {
    const query = `query($f: JSON) { organizations(filter: $f) { totalElements } }`;
    const duplicate = await get({ query, variables: `{"f":{"name":"a","name":"b"}}` });
    expect(duplicate.status).toBe(400);
    expect(JSON.parse(duplicate.text).errors[0].extensions.problems[0]).toMatchObject({ identifier: "variables.f.name", values: ["name"] });
    const broken = await get({ query, variables: `{"f":` });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400, problems: [{ identifier: "variables", problemType: "INCORRECT_DATA_TYPE" }] });
    const mutation = await get({ query: `mutation { createOrganization(input: { name: "Via GET" }) { id } }` });
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get("allow")).toBe("POST");
    expect((await server.api.post("/organizations/query", { name: "Via GET" })).body.totalElements).toBe(0);
  });

  it("answers GraphQL over HTTP's statuses and media types, with problem extensions on every error", async () => {
    const unknownField = JSON.stringify({ query: "{ organizations { colour } }" });
    const asJson = await post(unknownField, { accept: "application/json" });
    expect([asJson.status, asJson.headers.get("content-type")]).toEqual([200, "application/json; charset=utf-8"]);
    const asGraphqlResponse = await post(unknownField, { accept: "application/graphql-response+json" });
    expect([asGraphqlResponse.status, asGraphqlResponse.headers.get("content-type")]).toEqual([400, "application/graphql-response+json; charset=utf-8"]);
    expect(JSON.parse(asGraphqlResponse.text).errors[0].extensions.http).toBeUndefined();
    const syntax = await post(JSON.stringify({ query: "{ organizations(" }), { accept: "application/graphql-response+json" });
    expect(syntax.status).toBe(400);
    expect(JSON.parse(syntax.text).errors[0].extensions).toMatchObject({ code: "VALIDATION", graphqlCode: "GRAPHQL_PARSE_FAILED", status: 400 });

    // Typed errors set the status whatever the client accepts.
    const anonymous = await post(JSON.stringify({ query: "{ currentUser { id } }" }), { authorization: "" });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).errors[0].extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
    const batch = await post(JSON.stringify([{ query: "{ __typename }" }]));
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.text).errors[0]).toMatchObject({ message: "Batching is not supported.", extensions: { code: "VALIDATION", status: 400 } });
    const unexpected = await post(JSON.stringify({ query: "{ __typename }", colour: "red" }));
    expect(unexpected.status).toBe(400);
    expect(JSON.parse(unexpected.text).errors[0].message).toBe('Unexpected parameter "colour" in the request body.');
  });

  it("reads multipart requests (GraphQL multipart request spec) with the same JSON parser", async () => {
    const multipart = async (fields: Record<string, string | Blob>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      const response = await fetch(`${server.url}/api/graphql`, { method: "POST", headers: { authorization: `Bearer ${server.token}` }, body: form });
      return { status: response.status, body: JSON.parse(await response.text()) };
    };
    const query = `query($id: ID!) { organization(id: $id) { name } }`;
    const ok = await multipart({
      operations: JSON.stringify({ query, variables: { id: organizationId, attachment: null } }),
      map: JSON.stringify({ 0: ["variables.attachment"] }),
      0: new Blob(["a,b\n1,2\n"], { type: "text/csv" }),
    });
    expect(ok).toEqual({ status: 200, body: { data: { organization: { name: "HTTP org" } } } });
    const duplicate = await multipart({ operations: `{"query":"query($f: JSON) { organizations(filter: $f) { totalElements } }","variables":{"f":{"name":"a","name":"b"}}}` });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400, problems: [{ identifier: "operations.variables.f.name", values: ["name"] }] });
    const missing = await multipart({ map: "{}" });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ message: 'Missing multipart form field "operations"', extensions: { code: "VALIDATION", status: 400 } });
    const brokenMap = await multipart({ operations: JSON.stringify({ query: "{ __typename }" }), map: "{" });
    expect(brokenMap.status).toBe(400);
    expect(brokenMap.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "map", problemType: "INCORRECT_DATA_TYPE" });
    const tooLarge = await multipart({ operations: JSON.stringify({ query: "{ __typename }" }), map: JSON.stringify({ 0: ["variables.file"] }), 0: new Blob(["x".repeat(BODY_LIMIT + 1)]) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.errors[0].extensions).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    // Streamed without a declared length: refused while reading.
    const form = new FormData();
    form.append("operations", JSON.stringify({ query: "{ __typename }" }));
    form.append("map", JSON.stringify({ 0: ["variables.file"] }));
    form.append("0", new Blob(["x".repeat(BODY_LIMIT + 1)]));
    const encoded = new Response(form);
    const streamed = await fetch(`${server.url}/api/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": encoded.headers.get("content-type")! },
      body: encoded.body,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).errors[0].extensions).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
  });

  it("refuses a body over JSON_BODY_LIMIT with 413, declared or not", async () => {
    const big = JSON.stringify({ query: "{ __typename }", variables: { pad: "x".repeat(BODY_LIMIT) } });
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).errors[0].extensions).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    const streamed = await fetch(`${server.url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("answers cross-origin callers as Yoga does, and leaves streams, multipart and preflight to Yoga", async () => {
    const cors = await post(JSON.stringify({ query: "{ __typename }" }), { origin: "https://app.example.com" });
    expect(cors.status).toBe(200);
    expect(Object.fromEntries([...cors.headers].filter(([name]) => name.startsWith("access-control") || name === "vary"))).toEqual({
      "access-control-allow-origin": "https://app.example.com",
      "access-control-allow-credentials": "true",
      vary: "Origin",
    });
    const preflight = await fetch(`${server.url}/api/graphql`, { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("POST");

    const query = JSON.stringify({ query: `query($id: ID!) { organization(id: $id) { name } }`, variables: { id: organizationId } });
    const sse = await post(query, { accept: "text/event-stream" });
    expect(sse.headers.get("content-type")).toBe("text/event-stream");
    expect(sse.text).toContain(`data: {"data":{"organization":{"name":"HTTP org"}}}`);
    const multipart = await post(query, { accept: "multipart/mixed" });
    expect(multipart.headers.get("content-type")).toMatch(/^multipart\/mixed/);
    expect(multipart.text).toContain(`{"data":{"organization":{"name":"HTTP org"}}}`);
    // Duplicate keys are refused on Yoga's own path too.
    const duplicate = await post(`{"query":"{ __typename }","query":"{ __typename }"}`, { accept: "text/event-stream" });
    expect(duplicate.text).toContain("appears more than once");
    // A subscription asked for as one JSON result is Yoga's to answer, from the body already read.
    const subscription = await post(JSON.stringify({ query: "subscription { entityChanged { entityType } }" }), { accept: "application/json" });
    expect(subscription.status).toBe(406);
    const put = await fetch(`${server.url}/api/graphql`, { method: "PUT", headers: { authorization: `Bearer ${server.token}` } });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, POST"]);
  });
});
