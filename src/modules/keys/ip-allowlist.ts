// Address and CIDR matching through ipaddr.js; an IPv4-mapped IPv6 address counts as its IPv4 form.
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parse an allowlist entry (address or CIDR range); throws with a clear message when it is neither. */
export function parseAllowEntry(entry: string): Range {
  const text = entry.trim();
  try {
    if (text.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(text);
      return normalise(addr, bits);
    }
    const addr = ipaddr.process(text);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new Error(`'${text}' is not an IP address or CIDR range`);
  }
}

function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6, bits: number): Range {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [addr, bits];
}

export function ipAllowed(clientIp: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  let client: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    client = ipaddr.process(clientIp);
  } catch {
    return false;
  }
  for (const entry of allowlist) {
    const [range, bits] = parseAllowEntry(entry);
    if (range.kind() === client.kind() && client.match(range as never, bits)) return true;
  }
  return false;
}
