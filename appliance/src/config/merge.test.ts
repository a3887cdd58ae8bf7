import t from 'tap';
import { mergeLayers } from './merge.ts';

t.test('later layers win, objects merge deeply, arrays replace', async (t) => {
  const defaults = { heartbeat_interval_seconds: 60, uplink: { max_items: 50, window_seconds: 10 }, allow: ['a', 'b'] };
  const central = { heartbeat_interval_seconds: 30, uplink: { window_seconds: 5 }, allow: ['c'] };
  const local = { uplink: { max_items: 20 } };
  t.same(mergeLayers(defaults, central, local), {
    heartbeat_interval_seconds: 30,
    uplink: { max_items: 20, window_seconds: 5 },
    allow: ['c'],
  });
  t.same(defaults.uplink, { max_items: 50, window_seconds: 10 }, 'inputs are not mutated');
});

t.test('missing layers and prototype keys are ignored', async (t) => {
  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const merged = mergeLayers(undefined, hostile);
  t.same(merged, { a: 1 });
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('cameras from the hub and from the setup page run side by side; the same id is overridden field by field', async (t) => {
  const central = {
    cameras: [
      { id: 'hub-1', name: 'Gate', host: 'gate.example', source: 'hub' },
      { id: 'hub-2', name: 'Yard', source: 'hub' },
    ],
  };
  const local = {
    cameras: [
      { id: 'local-1', name: 'Back door' },
      { id: 'hub-2', host: '192.168.1.40' },
    ],
  };
  t.same(mergeLayers({}, central, local).cameras, [
    { id: 'hub-1', name: 'Gate', host: 'gate.example', source: 'hub' },
    { id: 'hub-2', name: 'Yard', source: 'hub', host: '192.168.1.40' },
    { id: 'local-1', name: 'Back door' },
  ]);
  t.same(mergeLayers({}, { cameras: [{ id: 'x' }] }, { heartbeat_interval_seconds: 5 }).cameras, [{ id: 'x' }], 'a layer without cameras keeps them');
});
