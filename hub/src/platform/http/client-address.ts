import { BlockList, isIP } from 'node:net';

/**
 * Which peer sent a request, behind zero or more reverse proxies (docs/security.md
 * "Client addresses behind a proxy"). Pure: no sockets, no Hono; client-ip.ts wires it.
 */

/** The proxies whose `X-Forwarded-For` the hub believes; null: believe nobody (default). */
export type TrustedProxies = BlockList | null;

/**
 * `HUB_TRUSTED_PROXIES` entries: addresses (`10.0.0.5`, `::1`) or CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`). A bad entry throws (the hub refuses to start) rather than
 * being skipped: a typo must not silently make every client look like the proxy.
 */
export function parseTrustedProxies(entries: readonly string[]): TrustedProxies {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) throw new Error(`not an address or CIDR range: "${raw}"`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) throw new Error(`bad prefix length in "${raw}"`);
    list.addSubnet(address, bits, type);
  }
  return list;
}

/** A valid IPv4/IPv6 literal (at most 45 characters, `last_used_ip`), or null. `::ffff:a.b.c.d` → `a.b.c.d`. */
export function normalizeIp(address: string | undefined | null): string | null {
  if (!address) return null;
  const unmapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return isIP(unmapped) !== 0 && unmapped.length <= 45 ? unmapped : null;
}

function isTrusted(trusted: BlockList, address: string): boolean {
  return trusted.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address: the socket peer unless that peer is a trusted proxy; then walk
 * `X-Forwarded-For` from the right (each proxy appends the peer it saw) past every trusted
 * hop and take the first untrusted one. Entries left of it were written by the client and
 * are never believed. A malformed entry stops the walk at the last hop a trusted proxy
 * vouched for. Every hop trusted: the left-most (the request began inside the trusted set).
 */
export function resolveClientAddress(socketPeer: string | null | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string | null {
  let current = normalizeIp(socketPeer);
  if (current === null || trusted === null || !isTrusted(trusted, current)) return current;
  const hops = (forwardedFor ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(stripPort(hops[i] ?? ''));
    if (hop === null) return current;
    current = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return current;
}

/** Some proxies write `192.0.2.1:51234` or `[2001:db8::1]:443`; the port is not the client. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1] ?? hop;
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4WithPort?.[1] ?? hop;
}
