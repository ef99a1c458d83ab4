import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/core/logger.js";
import { startServer } from "../src/server.js";
const config = { ...loadConfig({ LOG_LEVEL: "error" }), dataDir: "/tmp/micro/data", port: 0, embeddedPostgresPort: 54377, bootstrapToken: "fap_m", ipRateLimit: 1e9 };
const s = await startServer(config, createLogger("error"));
const h = { authorization: "Bearer fap_m", "content-type": "application/json" };
const org = await (await fetch(`${s.url}/api/v1/organizations`, { method: "POST", headers: h, body: JSON.stringify({ name: "x" }) })).json();
const eng = await (await fetch(`${s.url}/api/v1/engagements`, { method: "POST", headers: h, body: JSON.stringify({ organizationId: org.id, name: "E", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } }) })).json();
async function time(name: string, fn: () => Promise<unknown>, n = 3000) {
  for (let i = 0; i < 300; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  console.log(name.padEnd(30), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(0), "µs");
}
await time("pg by id", () => s.app.pool.query("SELECT * FROM engagement WHERE id = $1", [eng.id]));
await time("prisma findUnique", () => s.app.prisma.engagement.findUnique({ where: { id: eng.id } }));
await time("auth", () => s.app.tokens.authenticate("Bearer fap_m", "127.0.0.1"));
await time("REST GET over http", () => fetch(`${s.url}/api/v1/engagements/${eng.id}`, { headers: h }).then((r) => r.text()));
await time("healthz over http", () => fetch(`${s.url}/healthz`).then((r) => r.text()));
await s.close();
