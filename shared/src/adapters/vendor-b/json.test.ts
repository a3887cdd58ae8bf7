import t from 'tap';
import { jsonShapeProblem } from '../../http/json-shape.ts';
import { MAX_JSON_DEPTH, parseJsonBytes } from './json.ts';

const b = (s: string): Uint8Array => Buffer.from(s);
/** The shared scanner parseJsonBytes uses, with only the depth limit in play. */
const nestsDeeperThan = (bytes: Uint8Array, maxDepth: number): boolean =>
  jsonShapeProblem(bytes, { maxDepth, maxItems: 1_000_000, maxTotalItems: 1_000_000 }) !== undefined;

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

t.test('parseJsonBytes: element counts bounded before parsing (a 1 MB push once took 6.9 s)', async (t) => {
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i % 10).join(',');
  t.match(parseJsonBytes(b(`{"smartDetectTypes":[${numbers(470_000)}]}`)), { ok: false, reason: /more than 1000 items/ });
  t.match(parseJsonBytes(b(`[${Array.from({ length: 10 }, () => `{"s":[${numbers(999)}]}`).join(',')}]`)), {
    ok: false,
    reason: /more than 5000 array elements/,
  });
  t.equal(parseJsonBytes(b(`{"smartDetectTypes":[${numbers(1000)}]}`)).ok, true, 'at the limit');
});
