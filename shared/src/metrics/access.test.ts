import t from 'tap';
import { decideMetricsAccess, isLoopback } from './access.ts';

const TOKEN = 'a'.repeat(40);

t.test('loopback addresses', async (t) => {
  for (const a of ['127.0.0.1', '127.8.9.10', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) t.ok(isLoopback(a), a);
  for (const a of [null, '', '10.0.0.1', '203.0.113.9', '::2', '::ffff:10.0.0.1', 'fe80::1', '128.0.0.1', 'localhost']) t.notOk(isLoopback(a), String(a));
});

t.test('the decision table', async (t) => {
  const cases: [string | null, string | undefined, string | undefined, string][] = [
    ['127.0.0.1', undefined, undefined, 'allow'],
    ['127.0.0.1', undefined, TOKEN, 'allow'],
    ['127.0.0.1', `Bearer ${TOKEN}`, TOKEN, 'allow'],
    ['127.0.0.1', 'Bearer wrong', TOKEN, 'unauthorized'],
    ['127.0.0.1', `Bearer ${TOKEN}`, undefined, 'unauthorized'],
    ['203.0.113.9', undefined, undefined, 'forbidden'],
    [null, undefined, undefined, 'forbidden'],
    ['203.0.113.9', undefined, TOKEN, 'unauthorized'],
    ['203.0.113.9', `Bearer ${TOKEN}`, TOKEN, 'allow'],
    ['203.0.113.9', `bearer ${TOKEN}`, TOKEN, 'allow'],
    ['203.0.113.9', `Bearer ${TOKEN}x`, TOKEN, 'unauthorized'],
    ['203.0.113.9', `Bearer ${TOKEN.slice(1)}`, TOKEN, 'unauthorized'],
    ['203.0.113.9', `Basic ${TOKEN}`, TOKEN, 'unauthorized'],
    ['203.0.113.9', 'Bearer ', TOKEN, 'unauthorized'],
    ['203.0.113.9', `Bearer ${TOKEN} extra`, TOKEN, 'unauthorized'],
  ];
  for (const [clientAddress, authorization, token, expected] of cases) {
    t.equal(decideMetricsAccess({ clientAddress, authorization, token }), expected, `${clientAddress} ${authorization} ${token ? 'token set' : 'no token'}`);
  }
});
