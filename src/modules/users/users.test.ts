import { request as httpRequest } from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { parseMail, readOutbox, startFakeSmtpServer, type FakeSmtpServer } from "../../../test/helpers/mail.js";
import { newId } from "../../core/ids.js";

let server: TestServer;
let db: pg.Pool;
beforeAll(async () => {
  // A high limit here; the 100-per-hour budget has its own tests (modify-users-limit.test.ts).
  server = await startTestServer({ modifyUsersHourlyLimit: 100_000, publicUrl: "https://ledger.example.com" });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

let counter = 0;
const uniqueEmail = (prefix = "user") => `${prefix}.${Date.now()}.${counter++}@example.com`;

/** Users the API cannot create (Platform Support) are put in place the way the platform would. */
async function insertUser(role: string): Promise<string> {
  const id = newId();
  await db.query("INSERT INTO app_user (id, email, role, enabled, validated) VALUES ($1, $2, $3, true, false)", [id, uniqueEmail("seeded"), role]);
  return id;
}

async function invite(role: string, email = uniqueEmail()) {
  const response = await server.api.post("/users", { email, role });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function events(type: string, targetUserId: string) {
  const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = $1 AND entity_id = $2 ORDER BY id", [type, targetUserId]);
  return rows.map((r) => r.payload);
}

async function tokenWith(permissions: string[]) {
  const created = await server.api.post("/api-tokens", { name: `limited ${counter++}`, permissions });
  expect(created.status).toBe(200);
  return created.body as { token: string; userId: string; id: string };
}

describe("userName", () => {
  it("is the email for an invited person, first and last name once known", async () => {
    const invited = await invite("ROLE_USER");
    expect(invited.userName).toBe(invited.email);
    await db.query("UPDATE app_user SET first_name = 'Ada', last_name = 'Lovelace' WHERE id = $1", [invited.id]);
    expect((await server.api.get(`/users/${invited.id}`)).body.userName).toBe("Ada Lovelace");
    const page = await server.api.post("/users/query", { id: invited.id });
    expect(page.body.content[0].userName).toBe("Ada Lovelace");
  });

  it("is read-only: sent back in an update body it is ignored", async () => {
    const invited = await invite("ROLE_USER");
    const updated = await server.api.put(`/users/${invited.id}`, { ...invited, userName: "Someone else", enabled: false });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.userName).toBe(invited.email);
  });
});

describe("inviting users (POST /users)", () => {
  it("creates an enabled, not yet validated user and emails an activation link valid 7 days", async () => {
    const email = uniqueEmail("Invitee").replace("invitee", "Invitee");
    const before = Date.now();
    const response = await server.api.post("/users", { email: email.toUpperCase(), role: "ROLE_USER" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ email: email.toLowerCase(), role: "ROLE_USER", enabled: true, validated: false, serviceAccount: false, recentLogins: [], version: 0 });
    expect(response.body.id).toMatch(/^[0-9a-f]{24}$/);
    const mail = readOutbox(server.dataDir).find((m) => m.to === email.toLowerCase());
    expect(mail?.link).toMatch(/^https:\/\/ledger\.example\.com\/api\/activate\?token=/);
    expect(mail?.raw).toContain("valid for 7 days");
    const { rows } = await db.query("SELECT activation_expires_at FROM app_user WHERE id = $1", [response.body.id]);
    const expires = rows[0].activation_expires_at.getTime();
    expect(expires - before).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    expect(await events("user.invited", response.body.id)).toEqual([{ targetUserId: response.body.id, role: "ROLE_USER" }]);
  });

  it("activates the account through the link: a confirmation page, then the POST it submits", async () => {
    const user = await invite("ROLE_USER");
    const { token } = readOutbox(server.dataDir).find((m) => m.to === user.email)!;
    const pageResponse = await fetch(`${server.url}/api/activate?token=${token}`);
    expect(pageResponse.status).toBe(200);
    expect(await pageResponse.text()).toContain("<form");
    expect((await server.api.get(`/users/${user.id}`)).body.validated).toBe(false);

    const activated = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    expect(activated.status).toBe(200);
    const after = (await server.api.get(`/users/${user.id}`)).body;
    expect(after).toMatchObject({ validated: true, version: 1 });
    // A used link does not work twice.
    const again = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    expect(again.status).toBe(404);
  });

  it("refuses an activation link older than 7 days", async () => {
    const user = await invite("ROLE_USER");
    const { token } = readOutbox(server.dataDir).find((m) => m.to === user.email)!;
    await db.query("UPDATE app_user SET activation_expires_at = now() - interval '1 second' WHERE id = $1", [user.id]);
    const response = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    expect(response.status).toBe(410);
    expect((await server.api.get(`/users/${user.id}`)).body.validated).toBe(false);
    expect((await fetch(`${server.url}/api/activate?token=short`)).status).toBe(400);
  });

  it("answers 409 USER_EMAIL_ALREADY_EXISTS for an email in use, whatever its case", async () => {
    const user = await invite("ROLE_USER");
    const response = await server.api.post("/users", { email: user.email.toUpperCase(), role: "ROLE_USER_ADMIN" });
    expect(response.status).toBe(409);
    expect(response.body.problems[0]).toMatchObject({ problemType: "USER_EMAIL_ALREADY_EXISTS", identifier: "email" });
    const { rows } = await db.query("SELECT count(*)::int AS n FROM app_user WHERE email = $1", [user.email]);
    expect(rows[0].n).toBe(1);
  });

  it("validates the body: email format, role values, required keys, unknown keys", async () => {
    const badEmail = await server.api.post("/users", { email: "not-an-email", role: "ROLE_USER" });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.problems[0].identifier).toBe("email");
    const badRole = await server.api.post("/users", { email: uniqueEmail(), role: "ROLE_KING" });
    expect(badRole.status).toBe(400);
    expect(badRole.body.problems[0].identifier).toBe("role");
    const missing = await server.api.post("/users", { email: uniqueEmail() });
    expect(missing.status).toBe(400);
    expect(missing.body.problems[0].identifier).toBe("role");
    const blank = await server.api.post("/users", { email: " ", role: "ROLE_USER" });
    expect(blank.status).toBe(400);
    const unknown = await server.api.post("/users", { email: uniqueEmail(), role: "ROLE_USER", nickname: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("nickname");
  });

  it("accepts a read body sent back as a create body (read-only keys ignored)", async () => {
    const user = await invite("ROLE_USER");
    const copy = await server.api.post("/users", { ...user, email: uniqueEmail("copy") });
    expect(copy.status).toBe(200);
    expect(copy.body.id).not.toBe(user.id);
    expect(copy.body.validated).toBe(false);
  });

  it("needs api.users.write", async () => {
    const limited = await tokenWith(["api.users.read"]);
    const response = await server.api.withToken(limited.token).post("/users", { email: uniqueEmail(), role: "ROLE_USER" });
    expect(response.status).toBe(403);
    expect(response.body.problems[0].problemType).toBe("INSUFFICIENT_PERMISSION");
  });
});

describe("updating users (PUT /users/{id})", () => {
  it("disables and re-enables; re-enabling un-validates and sends a new activation link", async () => {
    const user = await invite("ROLE_USER");
    const first = readOutbox(server.dataDir).filter((m) => m.to === user.email);
    await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: first[0].token! }) });
    const validated = (await server.api.get(`/users/${user.id}`)).body;
    expect(validated.validated).toBe(true);

    const disabled = await server.api.put(`/users/${user.id}`, { enabled: false, role: "ROLE_USER", version: validated.version });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, validated: true, version: validated.version + 1 });
    expect(readOutbox(server.dataDir).filter((m) => m.to === user.email)).toHaveLength(1);

    const enabled = await server.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_USER", version: disabled.body.version });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, validated: false });
    const mails = readOutbox(server.dataDir).filter((m) => m.to === user.email);
    expect(mails).toHaveLength(2);
    expect(mails[1].raw).toContain("enabled again");
    expect(mails[1].token).not.toBe(mails[0].token);
    expect(await events("user.status", user.id)).toEqual([
      { targetUserId: user.id, status: "DISABLED" },
      { targetUserId: user.id, status: "ENABLED" },
    ]);
  });

  it("a disabled user's pending link stops working", async () => {
    const user = await invite("ROLE_USER");
    const { token } = readOutbox(server.dataDir).find((m) => m.to === user.email)!;
    await server.api.put(`/users/${user.id}`, { enabled: false, version: user.version });
    const response = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    expect(response.status).toBe(404);
  });

  it("changes the role and emits user.role", async () => {
    const user = await invite("ROLE_USER");
    const response = await server.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_ORGANIZATION_ADMIN", version: user.version });
    expect(response.status).toBe(200);
    expect(response.body.role).toBe("ROLE_ORGANIZATION_ADMIN");
    expect(await events("user.role", user.id)).toEqual([{ targetUserId: user.id, role: "ROLE_ORGANIZATION_ADMIN" }]);
    expect(await events("user.status", user.id)).toEqual([]);
  });

  it("refuses a stale version without overwriting", async () => {
    const user = await invite("ROLE_USER");
    expect((await server.api.put(`/users/${user.id}`, { role: "ROLE_USER_ADMIN", version: user.version })).status).toBe(200);
    const stale = await server.api.put(`/users/${user.id}`, { role: "ROLE_ORGANIZATION_ADMIN", version: user.version });
    expect(stale.status).toBe(409);
    expect(stale.body.problems[0].identifier).toBe("version");
    expect((await server.api.get(`/users/${user.id}`)).body.role).toBe("ROLE_USER_ADMIN");
  });

  it("requires version, refuses unknown keys and enum values", async () => {
    const user = await invite("ROLE_USER");
    expect((await server.api.put(`/users/${user.id}`, { enabled: false })).status).toBe(400);
    expect((await server.api.put(`/users/${user.id}`, { enabled: false, version: 0, email: "x@y.z" })).status).toBe(200);
    const unknown = await server.api.put(`/users/${user.id}`, { colour: "red", version: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("colour");
    expect((await server.api.put(`/users/${user.id}`, { role: "ROLE_NOPE", version: 1 })).status).toBe(400);
    // email is read-only on update: ignored, not changed
    expect((await server.api.get(`/users/${user.id}`)).body.email).toBe(user.email);
  });

  it("answers 404 for unknown users on every operation", async () => {
    const missing = "5cc9076887f13cb8a7a19999";
    expect((await server.api.get(`/users/${missing}`)).status).toBe(404);
    expect((await server.api.put(`/users/${missing}`, { enabled: false, version: 0 })).status).toBe(404);
    expect((await server.api.delete(`/users/${missing}`)).status).toBe(404);
    expect((await server.api.post(`/users/${missing}/resend-activation-link`, {})).status).toBe(404);
  });
});

describe("resending the activation link", () => {
  it("replaces the link with a new one valid 7 days", async () => {
    const user = await invite("ROLE_USER");
    const response = await server.api.post(`/users/${user.id}/resend-activation-link`, {});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: user.id, validated: false });
    const mails = readOutbox(server.dataDir).filter((m) => m.to === user.email);
    expect(mails).toHaveLength(2);
    const old = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: mails[0].token! }) });
    expect(old.status).toBe(404);
    const fresh = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: mails[1].token! }) });
    expect(fresh.status).toBe(200);
  });

  it("refuses users who already activated (409) and disabled users (409)", async () => {
    const user = await invite("ROLE_USER");
    const { token } = readOutbox(server.dataDir).find((m) => m.to === user.email)!;
    await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    const validated = await server.api.post(`/users/${user.id}/resend-activation-link`, {});
    expect(validated.status).toBe(409);
    expect(validated.body.problems[0].identifier).toBe("validated");

    const other = await invite("ROLE_USER");
    await server.api.put(`/users/${other.id}`, { enabled: false, version: other.version });
    const disabled = await server.api.post(`/users/${other.id}/resend-activation-link`, {});
    expect(disabled.status).toBe(409);
    expect(disabled.body.problems[0].identifier).toBe("enabled");
  });
});

describe("deleting users", () => {
  it("deletes with 204, emits user.deleted, frees the email", async () => {
    const user = await invite("ROLE_USER");
    expect((await server.api.delete(`/users/${user.id}`)).status).toBe(204);
    expect((await server.api.get(`/users/${user.id}`)).status).toBe(404);
    expect(await events("user.deleted", user.id)).toEqual([{ targetUserId: user.id }]);
    expect((await server.api.post("/users", { email: user.email, role: "ROLE_USER" })).status).toBe(200);
  });

  it("needs api.users.delete", async () => {
    const user = await invite("ROLE_USER");
    const limited = await tokenWith(["api.users.read", "api.users.write"]);
    expect((await server.api.withToken(limited.token).delete(`/users/${user.id}`)).status).toBe(403);
  });

  it("removes an API Token user only by deleting its token", async () => {
    const token = await tokenWith(["api.users.read"]);
    expect((await server.api.delete(`/users/${token.userId}`)).status).toBe(403);
    expect((await server.api.delete(`/api-tokens/${token.id}`)).status).toBe(204);
    expect((await server.api.get(`/users/${token.userId}`)).status).toBe(404);
  });
});

describe("querying users", () => {
  it("filters on role, enabled, validated, serviceAccount and email", async () => {
    const a = await invite("ROLE_USER_ADMIN", uniqueEmail("query-a"));
    const b = await invite("ROLE_USER_ADMIN", uniqueEmail("query-b"));
    await server.api.put(`/users/${b.id}`, { enabled: false, version: b.version });
    const admins = await server.api.post("/users/query?size=100", { $and: [{ role: "ROLE_USER_ADMIN" }, { email: { $iprefix: "query-" } }] });
    expect(admins.status).toBe(200);
    expect(admins.body.content.map((u: { id: string }) => u.id).sort()).toEqual([a.id, b.id].sort());
    const disabled = await server.api.post("/users/query", { enabled: false, id: { $in: [a.id, b.id] } });
    expect(disabled.body.content.map((u: { id: string }) => u.id)).toEqual([b.id]);
    const service = await server.api.post("/users/query", { serviceAccount: true });
    expect(service.body.content.every((u: { serviceAccount: boolean }) => u.serviceAccount)).toBe(true);
    expect(service.body.totalElements).toBeGreaterThanOrEqual(1);
    const bad = await server.api.post("/users/query", { recentLogins: "x" });
    expect(bad.status).toBe(400);
  });

  it("records recentLogins: when and from which address a token's user was used", async () => {
    const token = await tokenWith(["api.users.read"]);
    expect((await server.api.withToken(token.token).get("/users/current")).status).toBe(200);
    let logins: Array<{ ipAddress: string; timestamp: string }> = [];
    for (let i = 0; i < 50 && logins.length === 0; i++) {
      logins = (await server.api.get(`/users/${token.userId}`)).body.recentLogins;
      if (logins.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(logins).toHaveLength(1);
    expect(logins[0].ipAddress).toBe("127.0.0.1");
    expect(Math.abs(Date.parse(logins[0].timestamp) - Date.now())).toBeLessThan(60_000);
  });
});

describe("users over GraphQL", () => {
  it("invites, updates, resends, queries and deletes through the same rules", async () => {
    const email = uniqueEmail("gql");
    const created = await server.gql(`mutation($input: CreateUserInput!) { createUser(input: $input) { id email role enabled validated version } }`, { input: { email, role: "ROLE_USER" } });
    expect(created.body.errors).toBeUndefined();
    const user = created.body.data.createUser;
    expect(user).toMatchObject({ email, role: "ROLE_USER", enabled: true, validated: false, version: 0 });

    const updated = await server.gql(`mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { role version } }`, { id: user.id, input: { role: "ROLE_USER_ADMIN", version: 0 } });
    expect(updated.body.data.updateUser).toEqual({ role: "ROLE_USER_ADMIN", version: 1 });

    const resent = await server.gql(`mutation($id: ID!) { resendUserActivationLink(id: $id) { id version } }`, { id: user.id });
    expect(resent.body.data.resendUserActivationLink).toEqual({ id: user.id, version: 2 });
    expect(readOutbox(server.dataDir).filter((m) => m.to === email)).toHaveLength(2);

    const page = await server.gql(`query($f: JSON) { users(filter: $f) { totalElements content { id email recentLogins { ipAddress } } } }`, { f: { email } });
    expect(page.body.data.users).toEqual({ totalElements: 1, content: [{ id: user.id, email, recentLogins: [] }] });

    const toClient = await server.gql(`mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { role } }`, { id: user.id, input: { role: "ROLE_CLIENT", version: 2 } });
    expect(toClient.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });

    const duplicate = await server.gql(`mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, { input: { email, role: "ROLE_USER" } });
    expect(duplicate.body.errors?.[0].extensions?.problems[0].problemType).toBe("USER_EMAIL_ALREADY_EXISTS");

    const deleted = await server.gql(`mutation($id: ID!) { deleteUser(id: $id) { id } }`, { id: user.id });
    expect(deleted.body.data.deleteUser).toEqual({ id: user.id });
  });
});

describe("activation email over SMTP (SMTP_URL set)", () => {
  let smtp: FakeSmtpServer;
  let smtpServer: TestServer;
  let smtpDb: pg.Pool;
  beforeAll(async () => {
    smtp = await startFakeSmtpServer();
    smtpServer = await startTestServer({ smtpUrl: smtp.url, mailFrom: "platform@ledger.example.com", publicUrl: "https://ledger.example.com", modifyUsersHourlyLimit: 100_000 });
    smtpDb = new pg.Pool({ connectionString: smtpServer.databaseUrl, max: 1 });
  });
  afterAll(async () => {
    await smtpDb?.end();
    await smtpServer?.close();
    await smtp?.close();
  });

  it("delivers the invitation through the SMTP server, and writes nothing to the outbox", async () => {
    const email = uniqueEmail("smtp");
    const response = await smtpServer.api.post("/users", { email, role: "ROLE_USER" });
    expect(response.status).toBe(200);
    const message = smtp.received.find((m) => m.to.includes(email));
    expect(message?.from).toBe("platform@ledger.example.com");
    expect(message?.data.replace(/=\r?\n/g, "")).toMatch(/https:\/\/ledger\.example\.com\/api\/activate\?token=/);
    expect(readOutbox(smtpServer.dataDir)).toEqual([]);
  });

  it("stores nothing and answers 503 DELIVERY_FAILURE when the mail server refuses", async () => {
    const email = uniqueEmail("refused");
    smtp.reject.add(email);
    const response = await smtpServer.api.post("/users", { email, role: "ROLE_USER" });
    expect(response.status).toBe(503);
    expect(response.body.problems[0].problemType).toBe("DELIVERY_FAILURE");
    const query = await smtpServer.api.post("/users/query", { email });
    expect(query.body.totalElements).toBe(0);
    // The email is sent after the invitation committed; its removal is announced like any deletion.
    // (No other user of this server was deleted, so the deletion found is this one's.)
    const { rows } = await smtpDb.query("SELECT type FROM outbox_event WHERE entity_id IN (SELECT entity_id FROM outbox_event WHERE type = 'user.deleted') ORDER BY id");
    expect(rows.map((r) => r.type)).toEqual(["user.invited", "user.deleted"]);
    // Nothing is left in the way of a retry.
    smtp.reject.delete(email);
    expect((await smtpServer.api.post("/users", { email, role: "ROLE_USER" })).status).toBe(200);
  });

  it("re-enabling: when the email is refused the user stays disabled with its role (503), and a retry with the current version works", async () => {
    const email = uniqueEmail("reenable");
    const user = (await smtpServer.api.post("/users", { email, role: "ROLE_USER" })).body;
    const disabled = (await smtpServer.api.put(`/users/${user.id}`, { enabled: false, version: user.version })).body;
    smtp.reject.add(email);
    const refused = await smtpServer.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_USER_ADMIN", version: disabled.version });
    expect(refused.status).toBe(503);
    expect(refused.body.problems[0].problemType).toBe("DELIVERY_FAILURE");
    const after = (await smtpServer.api.get(`/users/${user.id}`)).body;
    // The reversal is a save of its own: the version moved on by two.
    expect(after).toMatchObject({ enabled: false, role: "ROLE_USER", validated: false, version: disabled.version + 2 });
    const { rows } = await smtpDb.query("SELECT type, payload FROM outbox_event WHERE entity_id = $1 AND type IN ('user.status', 'user.role') ORDER BY id", [user.id]);
    expect(rows.map((r) => [r.type, r.payload.status ?? r.payload.role])).toEqual([
      ["user.status", "DISABLED"],
      ["user.role", "ROLE_USER_ADMIN"],
      ["user.status", "ENABLED"],
      ["user.role", "ROLE_USER"],
      ["user.status", "DISABLED"],
    ]);
    smtp.reject.delete(email);
    const retried = await smtpServer.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_USER_ADMIN", version: after.version });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ enabled: true, role: "ROLE_USER_ADMIN", validated: false });
    expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(2);
  });

  it("resending: when the email is refused the previous link keeps working (503)", async () => {
    const email = uniqueEmail("resend-refused");
    const user = (await smtpServer.api.post("/users", { email, role: "ROLE_USER" })).body;
    const first = parseMail(smtp.received.find((m) => m.to.includes(email))!.data);
    smtp.reject.add(email);
    const refused = await smtpServer.api.post(`/users/${user.id}/resend-activation-link`, {});
    expect(refused.status).toBe(503);
    const activated = await fetch(`${smtpServer.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: first.token! }) });
    expect(activated.status).toBe(200);
    expect((await smtpServer.api.get(`/users/${user.id}`)).body.validated).toBe(true);
  });
});

describe("activation emails are sent only after the change committed", () => {
  // A deferred constraint trigger makes COMMIT itself fail for the listed emails: the case where an
  // email sent inside the transaction would have carried a link to a user that was never stored.
  beforeAll(async () => {
    await db.query(`
      CREATE TABLE test_refused_commit (email text PRIMARY KEY);
      CREATE FUNCTION test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM test_refused_commit WHERE email = NEW.email) THEN RAISE EXCEPTION 'commit refused for %', NEW.email; END IF;
        RETURN NULL;
      END $$;
      CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT OR UPDATE ON app_user DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_commit();
    `);
  });
  afterAll(async () => {
    await db.query("DROP TRIGGER test_refuse_commit ON app_user; DROP FUNCTION test_refuse_commit(); DROP TABLE test_refused_commit;");
  });

  it("an invitation whose commit fails sends no email", async () => {
    const email = uniqueEmail("commit-fails");
    await db.query("INSERT INTO test_refused_commit VALUES ($1)", [email]);
    const response = await server.api.post("/users", { email, role: "ROLE_USER" });
    expect(response.status).toBe(500);
    expect((await server.api.post("/users/query", { email })).body.totalElements).toBe(0);
    expect(readOutbox(server.dataDir).filter((m) => m.to === email)).toEqual([]);
  });

  it("a resend or re-enable whose commit fails sends no email and the previous link keeps working", async () => {
    const user = await invite("ROLE_USER");
    const { token } = readOutbox(server.dataDir).find((m) => m.to === user.email)!;
    await db.query("INSERT INTO test_refused_commit VALUES ($1)", [user.email]);
    expect((await server.api.post(`/users/${user.id}/resend-activation-link`, {})).status).toBe(500);
    expect(readOutbox(server.dataDir).filter((m) => m.to === user.email)).toHaveLength(1);
    await db.query("DELETE FROM test_refused_commit WHERE email = $1", [user.email]);

    const other = await invite("ROLE_USER");
    const disabled = (await server.api.put(`/users/${other.id}`, { enabled: false, version: other.version })).body;
    await db.query("INSERT INTO test_refused_commit VALUES ($1)", [other.email]);
    expect((await server.api.put(`/users/${other.id}`, { enabled: true, version: disabled.version })).status).toBe(500);
    expect(readOutbox(server.dataDir).filter((m) => m.to === other.email)).toHaveLength(1);
    expect((await server.api.get(`/users/${other.id}`)).body).toMatchObject({ enabled: false, version: disabled.version });

    const activated = await fetch(`${server.url}/api/activate`, { method: "POST", body: new URLSearchParams({ token: token! }) });
    expect(activated.status).toBe(200);
  });
});

/** A request with headers fetch will not set (Host), the way a client behind a proxy or DNS name sends it. */
function rawRequest(url: string, method: string, path: string, token: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, method, path, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("activation links without PUBLIC_URL: the listen address, or a host of PUBLIC_HOSTS", () => {
  let plain: TestServer;
  let proxied: TestServer;
  beforeAll(async () => {
    [plain, proxied] = await Promise.all([
      startTestServer({ modifyUsersHourlyLimit: 100_000, publicHosts: ["ledger.internal.example:8443", "ledger.internal.example"] }),
      startTestServer({ modifyUsersHourlyLimit: 100_000, trustProxy: true, publicHosts: ["ledger.example.org", "api.example.org"] }),
    ]);
  });
  afterAll(async () => {
    await plain?.close();
    await proxied?.close();
  });

  const linkTo = (s: TestServer, email: string) => readOutbox(s.dataDir).filter((m) => m.to === email).map((m) => m.link);
  const listenLink = (s: TestServer) => new RegExp(`^${s.url.replace(/[.]/g, "\\.")}/api/activate\\?token=`);

  it("invite, resend and re-enable links carry the requested host when it is listed, else the listen address", async () => {
    const email = uniqueEmail("origin");
    const invited = await plain.api.post("/users", { email, role: "ROLE_USER" });
    expect(invited.status).toBe(200);
    expect(linkTo(plain, email)[0]).toMatch(listenLink(plain));
    expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const host = { host: "ledger.internal.example:8443" };
    const resent = await rawRequest(plain.url, "POST", `/api/v1/users/${invited.body.id}/resend-activation-link`, plain.token, {}, host);
    expect(resent.status).toBe(200);
    const disabled = await rawRequest(plain.url, "PUT", `/api/v1/users/${invited.body.id}`, plain.token, { enabled: false, version: resent.body.version }, host);
    const reEnabled = await rawRequest(plain.url, "POST", "/api/graphql", plain.token, { query: `mutation($id: ID!, $v: Int!) { updateUser(id: $id, input: { enabled: true, version: $v }) { enabled } }`, variables: { id: invited.body.id, v: disabled.body.version } }, host);
    expect(reEnabled.body.data.updateUser.enabled).toBe(true);
    const links = linkTo(plain, email);
    expect(links).toHaveLength(3);
    expect(links[1]).toMatch(/^http:\/\/ledger\.internal\.example:8443\/api\/activate\?token=/);
    expect(links[2]).toMatch(/^http:\/\/ledger\.internal\.example:8443\/api\/activate\?token=/);
  });

  it("never builds a link from an unlisted Host (audit: Host: evil.example:8443 reached an App Admin's email), nor from X-Forwarded-* without TRUST_PROXY", async () => {
    const admin = uniqueEmail("admin-evil-host");
    const evil = await rawRequest(plain.url, "POST", "/api/v1/users", plain.token, { email: admin, role: "ROLE_ADMIN" }, { host: "evil.example:8443" });
    expect(evil.status, JSON.stringify(evil.body)).toBe(200);
    expect(linkTo(plain, admin)[0]).toMatch(listenLink(plain));
    expect(linkTo(plain, admin)[0]).not.toContain("evil");

    const email = uniqueEmail("forged");
    const forged = await rawRequest(plain.url, "POST", "/api/v1/users", plain.token, { email, role: "ROLE_USER" }, { host: "ledger.internal.example", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" });
    expect(forged.status).toBe(200);
    expect(linkTo(plain, email)[0]).toMatch(/^http:\/\/ledger\.internal\.example\/api\/activate\?token=/);

    const odd = uniqueEmail("odd-host");
    const response = await rawRequest(plain.url, "POST", "/api/v1/users", plain.token, { email: odd, role: "ROLE_USER" }, { host: "evil.example@attacker" });
    expect(response.status).toBe(200);
    expect(linkTo(plain, odd)[0]).not.toContain("evil");
  });

  it("follows X-Forwarded-Proto, and X-Forwarded-Host when listed, with TRUST_PROXY", async () => {
    const email = uniqueEmail("proxied");
    const response = await rawRequest(proxied.url, "POST", "/api/v1/users", proxied.token, { email, role: "ROLE_USER" }, { "x-forwarded-proto": "https", "x-forwarded-host": "ledger.example.org", "x-forwarded-for": "203.0.113.9" });
    expect(response.status).toBe(200);
    expect(linkTo(proxied, email)[0]).toMatch(/^https:\/\/ledger\.example\.org\/api\/activate\?token=/);
    // Only the scheme from the proxy: the host is then the one the request carried.
    const schemeOnly = uniqueEmail("scheme-only");
    await rawRequest(proxied.url, "POST", "/api/v1/users", proxied.token, { email: schemeOnly, role: "ROLE_USER" }, { "x-forwarded-proto": "https", host: "api.example.org" });
    expect(linkTo(proxied, schemeOnly)[0]).toMatch(/^https:\/\/api\.example\.org\/api\/activate\?token=/);
    // A forwarded host that is not listed: the listen address, with the proxy's scheme.
    const unlisted = uniqueEmail("unlisted");
    await rawRequest(proxied.url, "POST", "/api/v1/users", proxied.token, { email: unlisted, role: "ROLE_USER" }, { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" });
    expect(linkTo(proxied, unlisted)[0]).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${new URL(proxied.url).port}/api/activate`));
  });
});
