import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { isIP } from "node:net";
import type { Config } from "../config.js";
import { normaliseAddress } from "./ip-allow.js";

type AddressConfig = Pick<Config, "trustProxy" | "trustProxyHops">;
type OriginConfig = AddressConfig & Pick<Config, "publicHosts" | "host" | "port">;

function headerList(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(",") : (header ?? "");
  return joined
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The client address, as the rate limiters and `allowedAddresses` see it. Without TRUST_PROXY it
 * is the socket's peer. With it, each trusted proxy appends the address it received from to
 * X-Forwarded-For, so the client is the entry `hops` places from the right; whatever stands
 * further left was written by the caller (`X-Forwarded-For: 10.1.2.3` sent from anywhere) and is
 * ignored, as Express's `trust proxy = n` does. A list shorter than that falls back to its
 * left-most entry; one that is not an address, to the socket's peer.
 */
export function clientAddress(req: IncomingMessage | undefined, config: AddressConfig): string {
  const peer = normaliseAddress(req?.socket.remoteAddress ?? "0.0.0.0");
  if (!config.trustProxy || !req) return peer;
  const forwarded = headerList(req.headers["x-forwarded-for"]);
  if (forwarded.length === 0) return peer;
  const hops = Math.max(1, config.trustProxyHops);
  const entry = forwarded[Math.max(0, forwarded.length - hops)];
  const address = normaliseAddress(entry.replace(/^\[([^\]]+)\](?::\d+)?$/, "$1"));
  return isIP(address) ? address : peer;
}

/** A bare host with an optional port: a DNS name, IPv4 address or bracketed IPv6 address. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base of links this request's emails carry when PUBLIC_URL is unset. The Host header (and
 * X-Forwarded-Host) is the caller's to choose, and an App Admin's activation link once went to
 * `Host: evil.example:8443`: a requested host counts only when it is one of PUBLIC_HOSTS. Any other
 * request gets the server's own listen address: HOST when it names one, else the local address
 * the connection arrived on, with PORT. The scheme is the connection's (X-Forwarded-Proto with
 * TRUST_PROXY, which a trusted proxy sets).
 */
export function requestOrigin(req: IncomingMessage | undefined, config: OriginConfig): string | undefined {
  if (!req) return undefined;
  let scheme = (req.socket as TLSSocket | undefined)?.encrypted ? "https" : "http";
  let requested = headerList(req.headers.host).at(0);
  if (config.trustProxy) {
    const forwardedScheme = headerList(req.headers["x-forwarded-proto"]).at(-1)?.toLowerCase();
    if (forwardedScheme === "http" || forwardedScheme === "https") scheme = forwardedScheme;
    requested = headerList(req.headers["x-forwarded-host"]).at(-1) ?? requested;
  }
  const host = requested?.toLowerCase();
  if (host && host.length <= 260 && HOST.test(host) && config.publicHosts.includes(host)) return `${scheme}://${host}`;
  return listenOrigin(req, config, scheme);
}

function listenOrigin(req: IncomingMessage, config: Pick<Config, "host" | "port">, scheme: string): string | undefined {
  const wildcard = config.host === "0.0.0.0" || config.host === "::" || config.host === "";
  const address = wildcard ? normaliseAddress(req.socket.localAddress ?? "") : config.host;
  const port = wildcard ? req.socket.localPort : config.port || req.socket.localPort;
  if (!address) return undefined;
  const hostPart = isIP(address) === 6 ? `[${address}]` : address;
  return `${scheme}://${hostPart}${port ? `:${port}` : ""}`;
}
