import t from 'tap';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { generateApiKey } from '@alpr/shared/credentials/index';
import { insertDetection } from '../buffer/index.ts';
import { openTestBuffer, sampleDetection } from '../buffer/buffer.test-helper.ts';
import { initialHeartbeatState, type HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import { initialUplinkState, type UplinkState } from '../uplink/uplink-state.ts';
import { hubNotice, REPLACED_MESSAGE, type HubNotice } from './hub-notice.ts';
import { diagnosticsRoutes } from './routes.ts';
import type { DiagnosticsSnapshot } from './snapshot.ts';

const SINCE = Date.parse('2026-03-01T08:30:00.000Z');
const uplink = (patch: Partial<UplinkState>): UplinkState => ({ ...initialUplinkState(), running: true, ...patch });
const beat = (patch: Partial<HeartbeatState>): HeartbeatState => ({ ...initialHeartbeatState(60), ...patch });
const suspendedText = 'Suspended by the hub since 2026-03-01T08:30:00.000Z: readings are kept here and will be sent when the site is resumed';

t.test('hubNotice: what the hub said, in words', async (t) => {
  const cases: [string, UplinkState | undefined, HeartbeatState | undefined, HubNotice | null][] = [
    ['all well', uplink({}), beat({ collectorStatus: 'active' }), null],
    ['not claimed', undefined, undefined, null],
    [
      'suspended (upload 403)',
      uplink({ suspended: true, suspendedSinceMs: SINCE }),
      undefined,
      { kind: 'suspended', since: '2026-03-01T08:30:00.000Z', message: suspendedText },
    ],
    [
      'suspended, known only from the heartbeat',
      undefined,
      beat({ collectorStatus: 'disabled' }),
      { kind: 'suspended', since: null, message: 'Suspended by the hub: readings are kept here and will be sent when the site is resumed' },
    ],
    ['replaced (upload 401)', uplink({ replaced: true, keyStatus: 'rejected' }), beat({}), { kind: 'replaced', since: null, message: REPLACED_MESSAGE }],
    ['replaced (heartbeat 401)', uplink({}), beat({ replaced: true, keyRejected: true }), { kind: 'replaced', since: null, message: REPLACED_MESSAGE }],
    [
      'replaced wins over suspended: it is for good',
      uplink({ suspended: true, suspendedSinceMs: SINCE, replaced: true }),
      beat({ collectorStatus: 'disabled' }),
      { kind: 'replaced', since: null, message: REPLACED_MESSAGE },
    ],
  ];
  for (const [name, u, h, expected] of cases) t.same(hubNotice(u, h), expected, name);
});

t.test('GET /api/v1/status and GET / of the diagnostics routes carry the notice', async (t) => {
  const buffer = openTestBuffer(t.teardown.bind(t));
  insertDetection(buffer, sampleDetection({ plate: 'AB123CD' }));
  let state = uplink({ suspended: true, suspendedSinceMs: SINCE, retryAtMs: SINCE + 60_000 });
  let heartbeat = beat({ collectorStatus: 'disabled' });
  const app = diagnosticsRoutes({
    buffer,
    hubUrl: () => 'https://hub.example.test',
    apiKey: generateApiKey,
    uplink: () => state,
    heartbeat: () => heartbeat,
    cameras: () => [],
    now: () => new Date(SINCE + 90_000),
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const status = (await (await fetch(`${base}/api/v1/status`)).json()) as DiagnosticsSnapshot;
  t.same(status.hub_notice, { kind: 'suspended', since: '2026-03-01T08:30:00.000Z', message: suspendedText });
  t.match(status.uplink, { suspended: true, suspendedSinceMs: SINCE, replaced: false });
  t.match(status.buffer.states, { pending: 1 }, 'the reading is still here');
  t.match(await (await fetch(`${base}/`)).text(), suspendedText);

  state = uplink({ replaced: true, keyStatus: 'rejected' });
  heartbeat = beat({ replaced: true, keyRejected: true });
  const replaced = (await (await fetch(`${base}/api/v1/status`)).json()) as DiagnosticsSnapshot;
  t.same(replaced.hub_notice, { kind: 'replaced', since: null, message: REPLACED_MESSAGE });

  state = uplink({ lastSuccessAtMs: SINCE + 80_000 });
  heartbeat = beat({ collectorStatus: 'active' });
  t.equal(((await (await fetch(`${base}/api/v1/status`)).json()) as DiagnosticsSnapshot).hub_notice, null, 'resumed: gone');
});
