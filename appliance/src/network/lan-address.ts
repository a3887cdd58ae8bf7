import { BlockList, isIP } from 'node:net';

/**
 * Which addresses are on the local network: the peers the setup page answers
 * (http/request-guards.ts; docs/setup-page.md: reachable from the LAN only) and the devices
 * discovery keeps (discovery/). Pure: a string in, a verdict out.
 *
 * Allowed: loopback (127/8, ::1), RFC 1918 (10/8, 172.16/12, 192.168/16), link-local
 * (169.254/16, fe80::/10), unique local fc00::/7, and the IPv4-mapped IPv6 forms of the
 * IPv4 ranges (a dual-stack socket reports `::ffff:192.168.1.20`). Everything else,
 * including the unspecified address, CGNAT 100.64/10 (the carrier's side, not ours) and
 * anything that is not an address literal, is refused.
 */
const LAN_V4: readonly [string, number][] = [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
];
const LAN_V6: readonly [string, number][] = [
  ['::1', 128],
  ['fe80::', 10],
  ['fc00::', 7],
];

const lan = new BlockList();
for (const [net, prefix] of LAN_V4) lan.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of LAN_V6) lan.addSubnet(net, prefix, 'ipv6');

export type AddressVerdict = 'lan' | 'not_lan' | 'invalid';

export function classifyAddress(raw: string | undefined | null): AddressVerdict {
  if (typeof raw !== 'string') return 'invalid';
  // A zone id (`fe80::1%eth0`) names the interface, not part of the address.
  const address = raw.trim().replace(/%[0-9A-Za-z_.-]+$/, '');
  const family = isIP(address);
  if (family === 0) return 'invalid';
  // BlockList matches IPv4-mapped IPv6 (`::ffff:c0a8:114`, `::ffff:192.168.1.20`) against the IPv4 rules.
  return lan.check(address, family === 4 ? 'ipv4' : 'ipv6') ? 'lan' : 'not_lan';
}

export const isLanAddress = (raw: string | undefined | null): boolean => classifyAddress(raw) === 'lan';
