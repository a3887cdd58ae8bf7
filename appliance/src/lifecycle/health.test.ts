import t from 'tap';
import { detectRegressions, type HealthSample } from './health.ts';

const cams = (...states: [string, 'ONLINE' | 'OFFLINE' | 'CONNECTING'][]) => states.map(([id, state]) => ({ id, state }));
const ok = { consecutiveFailures: 0, keyStatus: 'ok' as const };

const cases: [string, HealthSample, HealthSample[], string[]][] = [
  ['healthy', { cameras: cams(['a', 'ONLINE']), uplink: ok }, [{ cameras: cams(['a', 'ONLINE']), uplink: ok }], []],
  [
    'online camera goes offline',
    { cameras: cams(['a', 'ONLINE']) },
    [{ cameras: cams(['a', 'CONNECTING']) }, { cameras: cams(['a', 'OFFLINE']) }],
    ['camera a went OFFLINE'],
  ],
  [
    'offline, then reconnecting at the end: still broken',
    { cameras: cams(['a', 'ONLINE']) },
    [{ cameras: cams(['a', 'OFFLINE']) }, { cameras: cams(['a', 'CONNECTING']) }],
    ['camera a went OFFLINE'],
  ],
  ['recovers within the window', { cameras: cams(['a', 'ONLINE']) }, [{ cameras: cams(['a', 'OFFLINE']) }, { cameras: cams(['a', 'ONLINE']) }], []],
  ['only restarting (never offline)', { cameras: cams(['a', 'ONLINE']) }, [{ cameras: cams(['a', 'CONNECTING']) }], []],
  ['camera removed by the new config', { cameras: cams(['a', 'ONLINE']) }, [{ cameras: [] }], []],
  ['camera already offline before', { cameras: cams(['a', 'OFFLINE']) }, [{ cameras: cams(['a', 'OFFLINE']) }], []],
  ['new camera offline', { cameras: [] }, [{ cameras: cams(['b', 'OFFLINE']) }], []],
  [
    'key rejected after the update',
    { cameras: [], uplink: ok },
    [{ cameras: [], uplink: { consecutiveFailures: 1, keyStatus: 'rejected' } }],
    ['the hub rejects the API key'],
  ],
  ['uploads failing', { cameras: [], uplink: ok }, [{ cameras: [], uplink: { consecutiveFailures: 3, keyStatus: 'ok' } }], ['uploads failing (3 in a row)']],
  ['two failures: not yet', { cameras: [], uplink: ok }, [{ cameras: [], uplink: { consecutiveFailures: 2, keyStatus: 'ok' } }], []],
  [
    'hub already down before',
    { cameras: [], uplink: { consecutiveFailures: 4, keyStatus: 'ok' } },
    [{ cameras: [], uplink: { consecutiveFailures: 9, keyStatus: 'ok' } }],
    [],
  ],
  ['no samples', { cameras: cams(['a', 'ONLINE']) }, [], []],
];

for (const [name, before, samples, expected] of cases) {
  t.same(detectRegressions(before, samples), expected, name);
}
t.same(
  detectRegressions({ cameras: cams(['a', 'ONLINE']) }, [{ cameras: [{ id: 'a', state: 'OFFLINE', lastError: 'ECONNREFUSED' }] }]),
  ['camera a went OFFLINE (ECONNREFUSED)'],
  'the last error is in the reason',
);
