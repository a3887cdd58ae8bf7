import t from 'tap';
import { heartbeatCameraSchema } from '@alpr/shared/protocol/collector';
import { heartbeatCameras } from './heartbeat-cameras.ts';
import { createStatusTracker, type CameraStatus } from './status.ts';

const NOW = new Date('2030-01-01T01:00:00.000Z');

function status(over: Partial<CameraStatus> & Pick<CameraStatus, 'vendor' | 'mode'>): CameraStatus {
  let at = NOW.getTime() - 3_600_000;
  const tracker = createStatusTracker({ id: 'cam', name: 'Gate', vendor: over.vendor, mode: over.mode }, { now: () => at });
  at = NOW.getTime() - 600_000;
  tracker.online();
  return { ...tracker.snapshot(), ...over };
}

t.test('each camera: state, last success, last error, clock warnings, and for a pulled vendor_b camera the cursor age', async (t) => {
  const cases: Array<[string, CameraStatus, Record<string, unknown>]> = [
    [
      'vendor_b pull, cursor current 90 s ago',
      status({ vendor: 'vendor_b', mode: 'pull', cursorCurrentAt: '2030-01-01T00:58:30.000Z' }),
      { id: 'cam', name: 'Gate', state: 'ONLINE', last_success_at: '2030-01-01T00:50:00.000Z', last_error: null, cursor_age_seconds: 90 },
    ],
    ['vendor_b pull, never pulled: no opinion (null)', status({ vendor: 'vendor_b', mode: 'pull' }), { cursor_age_seconds: null }],
    [
      'vendor_b push: no cursor age at all',
      status({ vendor: 'vendor_b', mode: 'push', cursorCurrentAt: '2030-01-01T00:00:00.000Z' }),
      { cursor_age_seconds: undefined },
    ],
    ['vendor_a pull: no cursor age', status({ vendor: 'vendor_a', mode: 'pull' }), { cursor_age_seconds: undefined }],
    [
      'offline with its error',
      status({ vendor: 'vendor_a', mode: 'pull', state: 'OFFLINE', lastError: 'ECONNREFUSED' }),
      { state: 'OFFLINE', last_error: 'ECONNREFUSED', clock_warnings: undefined },
    ],
    [
      'a measured clock: its warnings, none when fine',
      status({ vendor: 'vendor_a', mode: 'push', clock: { offsetMs: 0, source: 'reads', checkedAt: NOW.toISOString(), utcOffset: null, warnings: [] } }),
      { clock_warnings: [] },
    ],
    [
      'a cursor time ahead of now (clock stepped back): 0, not negative',
      status({ vendor: 'vendor_b', mode: 'pull', cursorCurrentAt: '2030-01-01T02:00:00.000Z' }),
      { cursor_age_seconds: 0 },
    ],
  ];
  for (const [name, input, expected] of cases) {
    const [out] = heartbeatCameras([input], NOW);
    t.match(out, expected, name);
    for (const [key, value] of Object.entries(expected)) if (value === undefined) t.notOk(out && key in out, `${name}: no ${key}`);
    t.ok(heartbeatCameraSchema.safeParse(out).success, `${name}: the hub's schema takes it`);
  }
});

t.test("cut to the hub's limits, so one long text never costs the whole heartbeat a 400", async (t) => {
  const warnings = Array.from({ length: 8 }, (_, i) => `${i} ${'w'.repeat(400)}`);
  const long = status({
    vendor: 'vendor_a',
    mode: 'pull',
    name: 'N'.repeat(150),
    lastError: 'e'.repeat(1000),
    clock: { offsetMs: 9e9, source: 'device', checkedAt: NOW.toISOString(), utcOffset: null, warnings },
  });
  const out = heartbeatCameras(
    Array.from({ length: 70 }, (_, i) => ({ ...long, id: `cam-${i}` })),
    NOW,
  );
  t.equal(out.length, 64, 'at most 64 cameras');
  t.equal(out[0]?.name?.length, 100);
  t.equal(out[0]?.last_error?.length, 300);
  t.equal(out[0]?.clock_warnings?.length, 5);
  t.ok(out[0]?.clock_warnings?.every((w) => w.length === 300));
  t.ok(
    out.every((c) => heartbeatCameraSchema.safeParse(c).success),
    'every one valid',
  );
});
