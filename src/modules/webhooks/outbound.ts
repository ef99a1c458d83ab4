import { lookup } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import type { Config } from "../../config.js";
import { normaliseAddress } from "../../auth/ip-allow.js";

/** Response bodies are read up to this many bytes (kept in the event log); the rest is not read. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

type OutboundConfig = Pick<Config, "webhookAllowedHosts" | "webhookResolve" | "webhookCaFile" | "webhookTimeoutSeconds">;

function blockList(entries: Array<[string, number, "ipv4" | "ipv6"]>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, type] of entries) list.addSubnet(address, prefix, type);
  return list;
}

/**
 * Addresses a webhook must not reach unless allowed by configuration: what an attacker registering
 * a URL could use to make the server call into its own network (SSRF). Checked in this order, so
 * the log names the most specific kind.
 */
const REFUSED: Array<[kind: string, list: BlockList]> = [
  ["a cloud metadata address", blockList([["169.254.169.254", 32, "ipv4"], ["169.254.170.2", 32, "ipv4"], ["100.100.100.200", 32, "ipv4"], ["fd00:ec2::254", 128, "ipv6"]])],
  ["a loopback address", blockList([["127.0.0.0", 8, "ipv4"], ["::1", 128, "ipv6"]])],
  ["an unspecified address", blockList([["0.0.0.0", 8, "ipv4"], ["::", 128, "ipv6"]])],
  ["a link-local address", blockList([["169.254.0.0", 16, "ipv4"], ["fe80::", 10, "ipv6"]])],
  ["a private network address", blockList([["10.0.0.0", 8, "ipv4"], ["172.16.0.0", 12, "ipv4"], ["192.168.0.0", 16, "ipv4"], ["100.64.0.0", 10, "ipv4"], ["fc00::", 7, "ipv6"]])],
  [
    "a reserved or special-purpose address",
    blockList([
      ["192.0.0.0", 24, "ipv4"],
      ["192.0.2.0", 24, "ipv4"],
      ["198.18.0.0", 15, "ipv4"],
      ["198.51.100.0", 24, "ipv4"],
      ["203.0.113.0", 24, "ipv4"],
      ["224.0.0.0", 4, "ipv4"],
      ["240.0.0.0", 4, "ipv4"],
      ["ff00::", 8, "ipv6"],
      ["2001:db8::", 32, "ipv6"],
      ["100::", 64, "ipv6"],
      // Translation prefixes reach IPv4 addresses through IPv6 (NAT64, 6to4), private ones included.
      ["64:ff9b::", 96, "ipv6"],
      ["64:ff9b:1::", 48, "ipv6"],
      ["2002::", 16, "ipv6"],
    ]),
  ],
];

/** Which refused kind an address is, or undefined for a public address. */
export function refusedKind(address: string): string | undefined {
  const normal = normaliseAddress(address);
  const type = isIP(normal) === 6 ? "ipv6" : "ipv4";
  for (const [kind, list] of REFUSED) if (list.check(normal, type)) return kind;
  return undefined;
}

interface AllowList {
  names: Set<string>;
  suffixes: string[];
  addresses: BlockList;
}

const allowLists = new WeakMap<readonly string[], AllowList>();

function allowListOf(entries: readonly string[]): AllowList {
  let list = allowLists.get(entries);
  if (!list) {
    list = { names: new Set(), suffixes: [], addresses: new BlockList() };
    for (const entry of entries) {
      const [address, prefix] = entry.split("/");
      const family = isIP(address);
      if (family !== 0) list.addresses.addSubnet(address, prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix), family === 4 ? "ipv4" : "ipv6");
      else if (entry.startsWith("*.")) list.suffixes.push(entry.slice(1));
      else list.names.add(entry);
    }
    allowLists.set(entries, list);
  }
  return list;
}

function hostAllowed(list: AllowList, host: string): boolean {
  return list.names.has(host) || list.suffixes.some((suffix) => host.endsWith(suffix));
}

function addressAllowed(list: AllowList, address: string): boolean {
  const normal = normaliseAddress(address);
  return list.addresses.check(normal, isIP(normal) === 6 ? "ipv6" : "ipv4");
}

export type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string; retryable: boolean };

/**
 * Resolves the receiver's host now (static WEBHOOK_RESOLVE entries first, then DNS) and checks every
 * address it has: one refused address refuses the delivery, since DNS may hand out any of them.
 * The request then connects to the checked address itself, so a second DNS answer cannot swap in
 * another one (DNS rebinding).
 */
export async function resolveTarget(config: OutboundConfig, hostname: string): Promise<Target> {
  const host = hostname.replace(/\.$/, "").toLowerCase();
  const allow = allowListOf(config.webhookAllowedHosts);
  let addresses: Array<{ address: string; family: number }>;
  const fixed = config.webhookResolve[host];
  if (fixed) addresses = [{ address: fixed, family: isIP(fixed) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      return { ok: false, reason: `the host name ${host} did not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, retryable: true };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `the host name ${host} has no address`, retryable: true };
  if (!hostAllowed(allow, host)) {
    for (const { address } of addresses) {
      const kind = refusedKind(address);
      if (kind && !addressAllowed(allow, address)) {
        return {
          ok: false,
          reason: `refused: ${host} resolves to ${address}, ${kind}; webhooks are not delivered to loopback, private, link-local, metadata or reserved addresses unless WEBHOOK_ALLOWED_HOSTS admits the host or address`,
          retryable: false,
        };
      }
    }
  }
  const chosen = addresses[0];
  return { ok: true, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

let caCache: { file: string; ca: string[] } | undefined;

function trustedCas(file: string | undefined): string[] | undefined {
  if (!file) return undefined;
  if (caCache?.file !== file) caCache = { file, ca: [...rootCertificates, readFileSync(file, "utf8")] };
  return caCache.ca;
}

export type Attempt =
  | { kind: "response"; statusCode: number; headers: Record<string, string[]>; body: string; truncated: boolean; seconds: number }
  | { kind: "error"; reason: string; seconds: number };

/**
 * One HTTPS POST to the already checked address: certificate checked against the URL's host name,
 * no redirects followed (the caller sees the 3xx), at most `RESPONSE_BODY_LIMIT` bytes of the
 * response read, everything within WEBHOOK_TIMEOUT_SECONDS.
 */
export function post(config: OutboundConfig, url: URL, target: { address: string; family: 4 | 6 }, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<Attempt> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(attempt);
    };
    const req = request({
      protocol: "https:",
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      servername: url.hostname.replace(/\.$/, ""),
      port: url.port || 443,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...headers, "content-length": Buffer.byteLength(body) },
      lookup: pinned,
      ca: trustedCas(config.webhookCaFile),
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ kind: "error", reason: `no complete response within ${config.webhookTimeoutSeconds} s (WEBHOOK_TIMEOUT_SECONDS)`, seconds: seconds() });
    }, config.webhookTimeoutSeconds * 1000);
    const onAbort = () => {
      req.destroy();
      finish({ kind: "error", reason: "the attempt was interrupted (the server is stopping)", seconds: seconds() });
    };
    signal.addEventListener("abort", onAbort);
    req.on("error", (error: NodeJS.ErrnoException) => finish({ kind: "error", reason: describeError(error), seconds: seconds() }));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) =>
        finish({ kind: "response", statusCode: res.statusCode ?? 0, headers: res.headersDistinct as Record<string, string[]>, body: Buffer.concat(chunks).toString("utf8"), truncated, seconds: seconds() });
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = RESPONSE_BODY_LIMIT - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= RESPONSE_BODY_LIMIT) {
          done(chunk.length > room || !res.complete);
          res.destroy();
        }
      });
      res.on("end", () => done(false));
      res.on("error", () => done(true));
    });
    req.end(body);
  });
}

function describeError(error: NodeJS.ErrnoException): string {
  const code = error.code ? `${error.code}: ` : "";
  return `the request failed (${code}${error.message})`;
}
