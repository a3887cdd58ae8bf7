import t from 'tap';
import { z } from 'zod';
import { findHostileText, safeText, textProblem } from './hostile-text.ts';
import { EDGE_JSON_LIMITS, jsonShapeProblem } from '../http/json-shape.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

t.test('textProblem: NUL and lone surrogates refused, pairs and ordinary text accepted', async (t) => {
  t.equal(textProblem('ABC123'), undefined);
  t.equal(textProblem('Zürich 東京 🚗'), undefined, 'a surrogate pair is fine');
  t.equal(textProblem('a\u0000b'), 'contains a NUL character');
  t.equal(textProblem('x\uD800'), 'contains a lone UTF-16 surrogate', 'high surrogate at the end');
  t.equal(textProblem('\uD800x'), 'contains a lone UTF-16 surrogate', 'high surrogate before a letter');
  t.equal(textProblem('\uDC00'), 'contains a lone UTF-16 surrogate', 'low surrogate alone');
  t.equal(textProblem('\uDBFF\uDFFF'), undefined, 'highest pair');
});

t.test('findHostileText names the nested field, including keys and array items', async (t) => {
  t.equal(findHostileText({ a: 1, b: ['ok', { c: 'fine' }] }), undefined);
  t.same(findHostileText({ email: 'x\u0000' }), { field: 'email', problem: 'contains a NUL character' });
  t.same(findHostileText({ config: { cameras: [{ name: 'ok' }, { name: '\uDFFF' }] } }), {
    field: 'config.cameras.1.name',
    problem: 'contains a lone UTF-16 surrogate',
  });
  t.same(findHostileText({ config: { ['bad\u0000key']: 1 } }), { field: 'config.bad\u0000key', problem: 'name contains a NUL character' });
  t.same(findHostileText('\u0000'), { field: '(body)', problem: 'contains a NUL character' });
  let deep: unknown = 'leaf';
  for (let i = 0; i < 10_000; i += 1) deep = [deep];
  t.match(findHostileText(deep)?.problem, /deeper than/, 'a deep value is refused, not a stack overflow');
});

t.test('safeText is a zod string with the rule', async (t) => {
  const schema = z.object({ site_name: safeText(z.string().max(10)) });
  t.ok(schema.safeParse({ site_name: 'Depot' }).success);
  const bad = schema.safeParse({ site_name: 'a\u0000' });
  t.notOk(bad.success);
  t.equal(bad.error?.issues[0]?.message, 'contains a NUL character');
  t.same(bad.error?.issues[0]?.path, ['site_name']);
  t.notOk(schema.safeParse({ site_name: 'x'.repeat(11) }).success, 'the wrapped schema still applies');
});

t.test('jsonShapeProblem: depth and items per container, strings skipped', async (t) => {
  t.equal(jsonShapeProblem(bytes('{"a":[1,2,3],"b":{"c":"[[[[,,,,"}}')), undefined);
  t.equal(jsonShapeProblem(bytes('[]')), undefined);
  t.equal(jsonShapeProblem(bytes('{}')), undefined);
  const limits = { maxDepth: 3, maxItems: 3, maxTotalItems: 100 };
  t.equal(jsonShapeProblem(bytes('[[[1]]]'), limits), undefined);
  t.match(jsonShapeProblem(bytes('[[[[1]]]]'), limits), /deeper than 3/);
  t.equal(jsonShapeProblem(bytes('[1, 2, 3]'), limits), undefined, 'exactly the limit');
  t.match(jsonShapeProblem(bytes('[1,2,3,4]'), limits), /more than 3 items/);
  t.match(jsonShapeProblem(bytes('{"a":1,"b":2,"c":3,"d":4}'), limits), /more than 3 items/, 'object members count too');
  t.equal(jsonShapeProblem(bytes('[[1,2,3],[1,2,3],[1,2,3]]'), limits), undefined, 'counted per container');
  t.equal(jsonShapeProblem(bytes('["\\"]]]]]]]]",1]'), limits), undefined, 'escaped quotes keep the string open');
  const huge = `{"smartDetectTypes":[${Array.from({ length: 470_000 }, (_, i) => i).join(',')}]}`;
  t.match(jsonShapeProblem(bytes(huge)), new RegExp(`more than ${EDGE_JSON_LIMITS.maxItems} items`));
  t.match(jsonShapeProblem(bytes('['.repeat(5000) + ']'.repeat(5000))), /deeper than 32/);
  const total = { maxDepth: 3, maxItems: 3, maxTotalItems: 7 };
  t.equal(jsonShapeProblem(bytes('[[1,2,3],[4,5]]'), total), undefined, '7 elements (2 arrays + 5 numbers)');
  t.match(jsonShapeProblem(bytes('[[1,2,3],[4,5,6]]'), total), /more than 7 array elements/);
  t.equal(jsonShapeProblem(bytes('[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3}]'), total), undefined, 'object members are not array elements');
});
