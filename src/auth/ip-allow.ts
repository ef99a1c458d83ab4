import { BlockList, isIP } from "node:net";

/** Normalises `::ffff:1.2.3.4` (IPv4 seen through an IPv6 socket) to `1.2.3.4`. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** Returns a reason when `entry` is not an IPv4/IPv6 address or CIDR range. */
export function addressEntryProblem(entry: string): string | undefined {
  const [address, prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return `"${entry}" is not an IPv4 or IPv6 address or CIDR range`;
  if (prefix === undefined) return undefined;
  const bits = Number(prefix);
  const max = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(prefix) || bits > max) return `"${entry}" has an invalid prefix length (0 to ${max})`;
  return undefined;
}

export function buildAllowList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

export function addressAllowed(list: BlockList, address: string): boolean {
  const normalised = normaliseAddress(address);
  const family = isIP(normalised);
  if (family === 0) return false;
  if (list.check(normalised, family === 6 ? "ipv6" : "ipv4")) return true;
  // An IPv4 client may also be listed in its IPv4-mapped IPv6 form.
  return family === 4 && list.check(`::ffff:${normalised}`, "ipv6");
}

/** The addresses an entry (address or CIDR range) covers, as numbers of its family. */
function addressRange(entry: string): { family: 4 | 6; start: bigint; end: bigint } | undefined {
  const [address, prefix] = entry.split("/");
  const family = isIP(address);
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  const value = family === 4 ? address.split(".").reduce((n, part) => (n << 8n) + BigInt(Number(part)), 0n) : ipv6Value(address);
  const length = prefix === undefined ? bits : Number(prefix);
  const hostBits = BigInt(bits - length);
  const start = (value >> hostBits) << hostBits;
  return { family: family as 4 | 6, start, end: start + (1n << hostBits) - 1n };
}

function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1].split(".").map(Number);
    text = text.slice(0, -v4[1].length) + `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return groups.reduce((n, group) => (n << 16n) + BigInt(parseInt(group || "0", 16)), 0n);
}

/**
 * Whether every address `entry` covers is covered by one of `within` (a token's own allowed
 * addresses; empty covers everything). An entry spanning two of them is refused, though their
 * union may cover it: list it as two entries.
 */
export function entryWithin(entry: string, within: readonly string[]): boolean {
  if (within.length === 0) return true;
  const inner = addressRange(entry);
  if (!inner) return false;
  return within.some((outerEntry) => {
    const outer = addressRange(outerEntry);
    return outer !== undefined && outer.family === inner.family && outer.start <= inner.start && inner.end <= outer.end;
  });
}
