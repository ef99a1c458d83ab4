import { isIP } from "node:net";
import { ValidationError } from "../../core/errors.js";

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_URL_LENGTH = 2048;

function refuse(url: string, reason: string): ValidationError {
  return new ValidationError(`url ${reason}`, { identifier: "url", values: [url] });
}

/**
 * Spec 6.1: HTTPS, and a fully qualified host name rather than an IP address. Returns the URL as
 * stored and compared for uniqueness: the WHATWG serialisation (lower-case host, default port
 * dropped), so `https://Hooks.Example.com:443/x` and `https://hooks.example.com/x` are one URL.
 * Where the name resolves is checked at each delivery (outbound.ts), not here: DNS answers
 * change, and a check now would prove nothing later.
 */
export function normaliseWebhookUrl(raw: string): string {
  const text = raw.trim();
  if (text.length > MAX_URL_LENGTH) throw refuse(raw, `is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(raw, `"${raw}" is not an absolute URL`);
  }
  if (url.protocol !== "https:") throw refuse(raw, `must use https (got ${url.protocol.replace(/:$/, "")})`);
  if (url.username || url.password) throw refuse(raw, "must not carry credentials: receivers are not authenticated, deliveries are signed (spec 5)");
  // The parser has already turned IPv4 in any spelling (decimal, hex, octal) into dotted form.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) throw refuse(raw, `must use a host name, not the IP address ${host}`);
  const name = host.replace(/\.$/, "");
  const labels = name.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) throw refuse(raw, `host "${url.hostname}" is not a fully qualified host name (such as hooks.example.com)`);
  if (/^\d+$/.test(labels[labels.length - 1])) throw refuse(raw, `host "${url.hostname}" is not a fully qualified host name: its last label is numeric`);
  url.hash = "";
  return url.href;
}
