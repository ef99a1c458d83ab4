import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/core/logger.js";
import { startServer } from "../src/server.js";
import { createYogaServer } from "../src/graphql/yoga.js";
import { schema } from "../schema/index.js";
import { compileRoutes } from "../rest/compile.js";
import { routeTable } from "../rest/routes.js";
import { execute as plainExecute } from "graphql";
import { buildRequestContext } from "../src/graphql/context-factory.js";
import { getEngagement } from "../src/modules/engagements/engagement.service.js";
const config = { ...loadConfig({ LOG_LEVEL: "error" }), dataDir: "/tmp/micro/data", port: 0, embeddedPostgresPort: 54377, bootstrapToken: "fap_m", ipRateLimit: 1e9 };
const s = await startServer(config, createLogger("error"));
const h = { authorization: "Bearer fap_m", "content-type": "application/json" };
const org = await (await fetch(`${s.url}/api/v1/organizations`, { method: "POST", headers: h, body: JSON.stringify({ name: "x" }) })).json();
const eng = await (await fetch(`${s.url}/api/v1/engagements`, { method: "POST", headers: h, body: JSON.stringify({ organizationId: org.id, name: "E", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } }) })).json();
const yoga = createYogaServer(s.app, schema);
const route = compileRoutes(schema, routeTable).find((r) => r.method === "GET" && r.path === "/engagements/{engagementId}")!;
const identity = { authorization: "Bearer fap_m", clientIp: "127.0.0.1", requestId: "x" };
async function time(name: string, fn: () => Promise<unknown>, n = 3000) {
  for (let i = 0; i < 300; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  console.log(name.padEnd(34), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(0), "µs");
}
const ctx = await buildRequestContext(s.app, identity);
await time("row reader by id", () => s.app.pool.query("SELECT * FROM engagement WHERE id = $1", [eng.id]));
await time("service getEngagement", () => getEngagement(ctx, eng.id));
await time("plain graphql execute (shared ctx)", async () => plainExecute({ schema, document: route.document, variableValues: { id: eng.id }, contextValue: { ...ctx } }));
await time("envelop execute", async () => {
  const { execute, contextFactory } = yoga.getEnveloped({ rest: identity } as never);
  return execute({ schema, document: route.document, variableValues: { id: eng.id }, contextValue: await contextFactory() });
});
await time("REST GET over http", () => fetch(`${s.url}/api/v1/engagements/${eng.id}`, { headers: h }).then((r) => r.text()));
await time("healthz over http", () => fetch(`${s.url}/healthz`).then((r) => r.text()));
await s.close();
