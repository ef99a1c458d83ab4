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
