import t from 'tap';
import { classifyAddress } from './lan-address.ts';

const table: [string | undefined, ReturnType<typeof classifyAddress>][] = [
  // IPv4 allowed
  ['127.0.0.1', 'lan'],
  ['127.255.0.9', 'lan'],
  ['10.0.0.1', 'lan'],
  ['10.255.255.255', 'lan'],
  ['172.16.0.1', 'lan'],
  ['172.31.255.254', 'lan'],
  ['192.168.1.20', 'lan'],
  ['169.254.10.10', 'lan'],
  // IPv4 refused: just outside the ranges, public, CGNAT, unspecified, broadcast
  ['172.15.255.255', 'not_lan'],
  ['172.32.0.1', 'not_lan'],
  ['192.169.0.1', 'not_lan'],
  ['11.0.0.1', 'not_lan'],
  ['8.8.8.8', 'not_lan'],
  ['203.0.113.5', 'not_lan'],
  ['100.64.0.1', 'not_lan'],
  ['0.0.0.0', 'not_lan'],
  ['255.255.255.255', 'not_lan'],
  // IPv6 allowed
  ['::1', 'lan'],
  ['fe80::1', 'lan'],
  ['fe80::1%eth0', 'lan'],
  ['febf:ffff::1', 'lan'],
  ['fc00::1', 'lan'],
  ['fd12:3456:789a::1', 'lan'],
  // IPv6 refused
  ['::', 'not_lan'],
  ['::2', 'not_lan'],
  ['fec0::1', 'not_lan'],
  ['fe00::1', 'not_lan'],
  ['2001:db8::1', 'not_lan'],
  ['2a00:1450:4007::200e', 'not_lan'],
  ['64:ff9b::c0a8:114', 'not_lan'],
  // IPv4-mapped IPv6
  ['::ffff:127.0.0.1', 'lan'],
  ['::ffff:192.168.1.20', 'lan'],
  ['::FFFF:10.1.2.3', 'lan'],
  ['::ffff:c0a8:114', 'lan'],
  ['::ffff:8.8.8.8', 'not_lan'],
  ['::ffff:203.0.113.5', 'not_lan'],
  // garbage
  ['', 'invalid'],
  [undefined, 'invalid'],
  ['localhost', 'invalid'],
  ['192.168.1', 'invalid'],
  ['192.168.1.256', 'invalid'],
  ['192.168.1.1/24', 'invalid'],
  ['http://192.168.1.1', 'invalid'],
  ['fe80::1::2', 'invalid'],
  ['::ffff:192.168.1.300', 'invalid'],
  ['192.168.1.20, 8.8.8.8', 'invalid'],
];

t.test('address classification table', async (t) => {
  for (const [input, expected] of table) t.equal(classifyAddress(input), expected, String(input));
});
