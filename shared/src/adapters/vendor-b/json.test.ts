import t from 'tap';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBytes } from './json.ts';

const b = (s: string): Uint8Array => Buffer.from(s);

t.test('depth counts brackets outside strings only', async (t) => {
  t.equal(nestsDeeperThan(b('[[[]]]'), 3), false);
  t.equal(nestsDeeperThan(b('[[[[]]]]'), 3), true);
  t.equal(nestsDeeperThan(b('{"a":{"b":[1]}}'), 3), false);
  t.equal(nestsDeeperThan(b('["[[[[[[", "\\"[[[[["]'), 2), false, 'brackets and escaped quotes inside strings');
  t.equal(nestsDeeperThan(b('[]'.repeat(10_000)), 1), false, 'siblings are not depth');
});

t.test('parseJsonBytes: ok, too deep, not JSON, not UTF-8', async (t) => {
  t.same(parseJsonBytes(b('{"a":[1,2]}')), { ok: true, value: { a: [1, 2] } });
  const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
  t.match(parseJsonBytes(b(deep)), { ok: false, reason: /deeper/ });
  t.same(parseJsonBytes(b('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).ok, true, 'at the limit');
  t.match(parseJsonBytes(b('{"a":')), { ok: false, reason: /not valid/ });
  t.match(parseJsonBytes(new Uint8Array([0x22, 0xff, 0x22])), { ok: false, reason: /UTF-8/ });
});
