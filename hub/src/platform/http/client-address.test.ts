import t from 'tap';
import { normalizeIp, parseTrustedProxies, resolveClientAddress } from './client-address.ts';

const proxies = parseTrustedProxies(['10.0.0.0/8', '192.0.2.10', 'fd00::/8']);

t.test('no trusted proxies: the socket peer, whatever the header says', async (t) => {
  t.equal(parseTrustedProxies([]), null);
  t.equal(resolveClientAddress('198.51.100.1', '203.0.113.9', null), '198.51.100.1');
  t.equal(resolveClientAddress('::ffff:198.51.100.1', undefined, null), '198.51.100.1', 'IPv4-mapped shown as IPv4');
  t.equal(resolveClientAddress(undefined, '203.0.113.9', null), null, 'no socket: unknown');
});

t.test('trusted proxies: walk X-Forwarded-For from the right past trusted hops', async (t) => {
  const table: Array<[string, string | undefined, string | null, string]> = [
    ['10.1.2.3', '203.0.113.9', '203.0.113.9', 'one proxy'],
    ['10.1.2.3', '6.6.6.6, 203.0.113.9', '203.0.113.9', 'a client-written left entry is ignored'],
    ['10.1.2.3', '203.0.113.9, 192.0.2.10', '203.0.113.9', 'two trusted proxies in a chain'],
    ['10.1.2.3', '203.0.113.9:51234', '203.0.113.9', 'port stripped (IPv4)'],
    ['10.1.2.3', '[2001:db8::5]:443', '2001:db8::5', 'port stripped (IPv6)'],
    ['10.1.2.3', 'garbage, 203.0.113.9', '203.0.113.9', 'garbage left of the client is never reached'],
    ['10.1.2.3', '203.0.113.9, garbage', '10.1.2.3', 'garbage the proxy vouched for: stop at the proxy'],
    ['10.1.2.3', undefined, '10.1.2.3', 'no header: the proxy itself'],
    ['10.1.2.3', '10.9.9.9', '10.9.9.9', 'every hop trusted: the left-most'],
    ['198.51.100.7', '203.0.113.9', '198.51.100.7', 'a peer outside the list cannot forward'],
    ['::ffff:10.1.2.3', '203.0.113.9', '203.0.113.9', 'IPv4-mapped peer matches an IPv4 range'],
    ['fd00::1', '2001:db8::9', '2001:db8::9', 'IPv6 range'],
  ];
  for (const [peer, header, expected, why] of table) t.equal(resolveClientAddress(peer, header, proxies), expected, why);
});

t.test('bad entries are refused, not skipped', async (t) => {
  for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.0/x', '::1/129', '10.0.0.1/8/9', '']) {
    t.throws(() => parseTrustedProxies([bad]), JSON.stringify(bad));
  }
});

t.test('normalizeIp keeps literals only', async (t) => {
  t.equal(normalizeIp('::1'), '::1');
  t.equal(normalizeIp('not-an-ip'), null);
  t.equal(normalizeIp(undefined), null);
});
