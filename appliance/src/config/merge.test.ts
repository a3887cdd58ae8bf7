import t from 'tap';
import { mergeLayers } from './merge.ts';

t.test('later layers win, objects merge deeply, arrays replace', async (t) => {
  const defaults = { heartbeat_interval_seconds: 60, uplink: { max_items: 50, window_seconds: 10 }, cameras: [{ id: 'a' }, { id: 'b' }] };
  const central = { heartbeat_interval_seconds: 30, uplink: { window_seconds: 5 }, cameras: [{ id: 'c' }] };
  const local = { uplink: { max_items: 20 } };
  t.same(mergeLayers(defaults, central, local), {
    heartbeat_interval_seconds: 30,
    uplink: { max_items: 20, window_seconds: 5 },
    cameras: [{ id: 'c' }],
  });
  t.same(defaults.uplink, { max_items: 50, window_seconds: 10 }, 'inputs are not mutated');
});

t.test('missing layers and prototype keys are ignored', async (t) => {
  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const merged = mergeLayers(undefined, hostile);
  t.same(merged, { a: 1 });
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
