import { randomBytes } from "node:crypto";

/**
 * Mixed load against one or more server processes (issue 16 point 3): `clients` concurrent
 * clients, each in a loop for `seconds`, picking reads, queries, creates, updates with possibly
 * stale versions and small uploads. Every answer must be 2xx, 404, 409 or 429; anything else is
 * recorded as a violation. Updates go to a few shared organizations so that they contend; at the
 * end every 2xx update must be accounted for in the final state (no lost update).
 *
 * Used by `npm run bench` (bench/load.bench.ts, 60 s) and by a short test (test/robust/load.test.ts).
 */

export interface LoadMixOptions {
  /** Base URLs of the processes; client i talks to urls[i % n], switching on every request. */
  urls: string[];
  token: string;
  engagementId: string;
  clients: number;
  seconds: number;
  /** Organizations all clients update (contended); created by `prepareLoadMix`. */
  contended: string[];
  /** Organizations to read (some ids that do not exist are read too: 404). */
  readable: string[];
}

export interface RouteStats {
  count: number;
  statuses: Record<number, number>;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadMixResult {
  seconds: number;
  requests: number;
  perSecond: number;
  routes: Record<string, RouteStats>;
  violations: Array<{ route: string; status: number; body: string }>;
  /** Updates answered 2xx, per contended organization, and what the final state shows. */
  updates: { succeeded: number; conflicts: number; lost: number; detail: string[] };
}

const ALLOWED = new Set([404, 409, 429]);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Creates the organizations the load reads and updates; returns their ids. */
export async function prepareLoadMix(url: string, token: string, contended = 8, readable = 200): Promise<{ contended: string[]; readable: string[] }> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const make = async (name: string) => {
    const response = await fetch(`${url}/api/v1/organizations`, { method: "POST", headers, body: JSON.stringify({ name }) });
    if (response.status !== 200) throw new Error(`create ${name}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const ids: string[] = [];
  for (let i = 0; i < readable; i += 20) ids.push(...(await Promise.all(Array.from({ length: Math.min(20, readable - i) }, (_, j) => make(`load read ${i + j}`)))));
  const shared = await Promise.all(Array.from({ length: contended }, (_, i) => make(`load contended ${i}`)));
  return { contended: shared, readable: ids };
}

export async function runLoadMix(options: LoadMixOptions): Promise<LoadMixResult> {
  const latencies = new Map<string, number[]>();
  const statuses = new Map<string, Record<number, number>>();
  const violations: LoadMixResult["violations"] = [];
  /** Per contended organization: the name each 2xx update wrote and the version it answered. */
  const applied = new Map<string, Array<{ version: number; name: string }>>();
  let conflicts = 0;
  const headers = { authorization: `Bearer ${options.token}` };
  const deadline = Date.now() + options.seconds * 1000;
  const upload = randomBytes(16 * 1024);

  const call = async (client: number, route: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
    const url = options.urls[(client + Math.floor(Math.random() * options.urls.length)) % options.urls.length];
    const started = performance.now();
    let status = 0;
    let text = "";
    try {
      const response = await fetch(`${url}/api/v1${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
      status = response.status;
      text = await response.text();
    } catch (error) {
      text = String((error as Error).message);
    }
    const ms = performance.now() - started;
    if (!latencies.has(route)) {
      latencies.set(route, []);
      statuses.set(route, {});
    }
    latencies.get(route)!.push(ms);
    const counts = statuses.get(route)!;
    counts[status] = (counts[status] ?? 0) + 1;
    if (!(status >= 200 && status < 300) && !ALLOWED.has(status)) violations.push({ route, status, body: text.slice(0, 300) });
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status, body };
  };

  const json = (method: string, body: unknown): RequestInit => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];

  const client = async (index: number) => {
    let n = 0;
    while (Date.now() < deadline) {
      n++;
      const roll = Math.random();
      if (roll < 0.35) {
        // Reads: mostly existing organizations, some unknown ids (404).
        const id = Math.random() < 0.1 ? randomBytes(12).toString("hex") : pick(options.readable);
        await call(index, "GET /organizations/{id}", `/organizations/${id}`);
      } else if (roll < 0.55) {
        await call(index, "POST /organizations/query", `/organizations/query?size=20&sort=name,asc`, json("POST", { name: { $iprefix: "load read 1" } }));
      } else if (roll < 0.65) {
        await call(index, "POST /organizations", "/organizations", json("POST", { name: `load created ${index}-${n}` }));
      } else if (roll < 0.92) {
        // Read-modify-write of a contended organization; a tenth of them send a version already stale.
        const id = pick(options.contended);
        const read = await call(index, "GET /organizations/{id}", `/organizations/${id}`);
        if (read.status !== 200) continue;
        const version = Math.random() < 0.1 ? read.body.version - 1 : read.body.version;
        const name = `load contended ${index}-${n}`;
        const updated = await call(index, "PUT /organizations/{id}", `/organizations/${id}`, json("PUT", { name, version }));
        if (updated.status === 200) {
          if (!applied.has(id)) applied.set(id, []);
          applied.get(id)!.push({ version: updated.body.version, name });
        } else if (updated.status === 409) conflicts++;
      } else {
        const boundary = `----load${index}x${n}`;
        const body = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileManagerFile"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ engagementId: options.engagementId, name: `load ${index}-${n}` })}\r\n`),
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="load.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
          upload,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        await call(index, "POST /file-manager/import", "/file-manager/import", { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, body });
      }
    }
  };

  const started = Date.now();
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  const elapsed = (Date.now() - started) / 1000;

  // No lost update: every 2xx update moved the version by one (distinct versions), and the final
  // state is the update that answered the highest version.
  const detail: string[] = [];
  let lost = 0;
  let succeeded = 0;
  for (const id of options.contended) {
    const updates = (applied.get(id) ?? []).sort((a, b) => a.version - b.version);
    succeeded += updates.length;
    const final = (await (await fetch(`${options.urls[0]}/api/v1/organizations/${id}`, { headers })).json()) as { version: number; name: string };
    const versions = new Set(updates.map((u) => u.version));
    if (versions.size !== updates.length) {
      lost += updates.length - versions.size;
      detail.push(`${id}: ${updates.length - versions.size} updates answered 2xx with a version another one had too`);
    }
    const last = updates.at(-1);
    if (last && (final.version !== last.version || final.name !== last.name)) {
      lost++;
      detail.push(`${id}: final ${final.version} "${final.name}", last acknowledged ${last.version} "${last.name}"`);
    }
    // Created at version 0, each committed update adds one: more versions than acknowledged updates
    // would be a write the client was told failed.
    if (final.version !== updates.length) {
      lost++;
      detail.push(`${id}: version ${final.version} after ${updates.length} acknowledged updates`);
    }
  }

  const routes: Record<string, RouteStats> = {};
  let requests = 0;
  for (const [route, values] of latencies) {
    const sorted = [...values].sort((a, b) => a - b);
    requests += sorted.length;
    routes[route] = { count: sorted.length, statuses: statuses.get(route)!, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
  }
  return { seconds: elapsed, requests, perSecond: requests / elapsed, routes, violations, updates: { succeeded, conflicts, lost, detail } };
}

/** The routes of a result as a markdown table. */
export function routeTable(result: LoadMixResult): string {
  const rows = Object.entries(result.routes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([route, s]) => `| ${route} | ${s.count} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(0)} | ${Object.entries(s.statuses).map(([code, n]) => `${code}: ${n}`).join(", ")} |`);
  return ["| Route | Requests | p50 ms | p99 ms | max ms | Statuses |", "|---|---:|---:|---:|---:|---|", ...rows].join("\n");
}
