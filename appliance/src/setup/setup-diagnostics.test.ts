import t from 'tap';
import { generateApiKey } from '@alpr/shared/credentials/index';
import { insertDetection } from '../buffer/index.ts';
import { openTestBuffer, sampleDetection } from '../buffer/buffer.test-helper.ts';
import { createStatusTracker } from '../cameras/status.ts';
import { takeSnapshot } from '../diagnostics/snapshot.ts';
import { initialHeartbeatState, type HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import { initialUplinkState, type UplinkState } from '../uplink/uplink-state.ts';
import { postJson, startSetup } from './setup.test-helper.ts';

/**
 * An appliance that starts already claimed: `/` is the read-only diagnostics from the real
 * diagnostics snapshot (buffer, uploads, heartbeat, cameras, errors), the key by prefix only.
 */
t.test('claimed at start: diagnostics from real sources, setup closed', async (t) => {
  const buffer = openTestBuffer(t.teardown.bind(t));
  insertDetection(buffer, sampleDetection({ plate: 'AB123CD' }));
  insertDetection(buffer, sampleDetection({ plate: 'XY987ZT' }));
  const apiKey = generateApiKey();
  let nowMs = Date.parse('2026-03-01T09:00:00.000Z');
  const clock = { now: () => nowMs };
  const online = createStatusTracker({ id: 'gate-1', name: 'Gate', vendor: 'vendor_a', mode: 'pull', source: 'hub' }, clock);
  online.online();
  online.clock({
    offsetMs: 252_460_800_000,
    source: 'device',
    checkedAt: '2026-03-01T09:00:00.000Z',
    utcOffset: '+08:00',
    warnings: ["this camera's clock is 8 years ahead: its capture times are corrected; set the camera's time (a time server) to stop this"],
  });
  const offline = createStatusTracker({ id: 'nvr', name: 'NVR', vendor: 'vendor_b', mode: 'pull', source: 'local' }, clock);
  offline.offline('connect ECONNREFUSED 192.168.1.80:443');
  nowMs += 1000;
  const uplink = {
    ...initialUplinkState(),
    running: true,
    keyStatus: 'ok' as const,
    lastSuccessAtMs: nowMs,
    totals: { batches: 3, requests: 3, bytes: 1000, stored: 7, duplicate: 1, rejected: 0 },
  };
  const heartbeat = { ...initialHeartbeatState(60), lastOkAt: '2026-03-01T08:59:00.000Z', lastError: 'network: ETIMEDOUT', consecutiveFailures: 2 };
  const setup = await startSetup(t, {
    state: () => 'claimed',
    snapshot: () =>
      takeSnapshot({
        buffer,
        hubUrl: () => 'https://hub.example.test',
        apiKey: () => apiKey,
        uplink: () => uplink,
        cameras: () => [online.snapshot(), offline.snapshot()],
        now: () => new Date(nowMs),
      }),
    heartbeat: () => heartbeat,
  });
  const page = await (await fetch(`${setup.base}/`)).text();
  t.match(page, /read-only/);
  t.match(page, `${apiKey.slice(0, 10)}… (ok)`);
  t.notOk(page.includes(apiKey), 'never the full key');
  t.notOk(page.includes(apiKey.slice(0, 11)), 'not one character past the prefix');
  t.match(page, /2 pending, 0 in flight, 0 rejected/);
  t.match(
    page,
    /camera gate-1: this camera&#39;s clock is 8 years ahead|camera gate-1: this camera's clock is 8 years ahead/,
    'the clock warning is on the diagnostics page',
  );
  t.match(page, /3 batches, 7 stored, 1 duplicates/);
  t.match(page, /2026-03-01T08:59:00.000Z \(2 failures since\)/);
  t.match(page, /Cameras online<\/th><td>1 of 2/);
  t.match(page, /<td data-label="camera">Gate <small>gate-1<\/small><\/td><td data-label="entered on">the hub<\/td>/, 'a camera managed on the hub says so');
  t.match(page, /<td data-label="camera">NVR <small>nvr<\/small><\/td><td data-label="entered on">this device<\/td>/, 'a camera set up here says so');
  t.match(page, /heartbeat: network: ETIMEDOUT/);
  t.match(page, /camera nvr \([^)]+\): connect ECONNREFUSED 192\.168\.1\.80:443/);
  t.notOk(page.includes('<form'));
  t.equal((await postJson(setup.base, '/setup/cameras', { id: 'x' })).status, 410);
});

t.test('before the claim the setup page shows a camera clock warning too', async (t) => {
  const clock = { now: () => Date.parse('2026-03-01T09:00:00.000Z') };
  const camera = createStatusTracker({ id: 'lane-2', name: 'Lane 2', vendor: 'vendor_a', mode: 'pull' }, clock);
  camera.online();
  camera.clock({
    offsetMs: 0,
    source: 'device',
    checkedAt: '2026-03-01T09:00:00.000Z',
    utcOffset: '+01:00',
    warnings: ['this camera reports +01:00 but Europe/Oslo is +02:00 on this date: summer time is switched off or wrong on the camera'],
  });
  const buffer = openTestBuffer(t.teardown.bind(t));
  const setup = await startSetup(t, {
    snapshot: () =>
      takeSnapshot({
        buffer,
        hubUrl: () => undefined,
        apiKey: () => undefined,
        uplink: () => undefined,
        cameras: () => [camera.snapshot()],
        now: () => new Date(clock.now()),
      }),
  });
  const page = await (await fetch(`${setup.base}/`)).text();
  t.match(page, /camera lane-2: this camera reports \+01:00 but Europe\/Oslo is \+02:00 on this date: summer time is switched off/);
});

t.test('claimed page: a suspended site and a replaced box are said in words, not as key errors', async (t) => {
  const buffer = openTestBuffer(t.teardown.bind(t));
  insertDetection(buffer, sampleDetection({ plate: 'AB123CD' }));
  const apiKey = generateApiKey();
  const since = Date.parse('2026-03-01T08:30:00.000Z');
  let uplink: UplinkState = { ...initialUplinkState(), running: true, keyStatus: 'ok', suspended: true, suspendedSinceMs: since, retryAtMs: since + 60_000 };
  let heartbeat: HeartbeatState = { ...initialHeartbeatState(60), lastOkAt: '2026-03-01T08:59:00.000Z', collectorStatus: 'disabled' };
  const setup = await startSetup(t, {
    state: () => 'claimed',
    snapshot: () =>
      takeSnapshot({
        buffer,
        hubUrl: () => 'https://hub.example.test',
        apiKey: () => apiKey,
        uplink: () => uplink,
        heartbeat: () => heartbeat,
        cameras: () => [],
        now: () => new Date(since + 1_800_000),
      }),
    heartbeat: () => heartbeat,
  });
  const suspendedPage = await (await fetch(`${setup.base}/`)).text();
  t.match(suspendedPage, 'Suspended by the hub since 2026-03-01T08:30:00.000Z: readings are kept here and will be sent when the site is resumed');
  t.match(suspendedPage, /Uploads<\/th><td>suspended by the hub; /);
  t.match(suspendedPage, /1 pending/);
  t.match(suspendedPage, /<h2>Errors<\/h2>\s*<p>None.<\/p>/, 'a suspension is not an error of this box');

  uplink = {
    ...uplink,
    suspended: false,
    suspendedSinceMs: null,
    replaced: true,
    keyStatus: 'rejected',
    lastError: { atMs: since, kind: 'key_rejected', message: 'hub answered 401: this box was replaced by another device on the hub', status: 401 },
  };
  heartbeat = {
    ...heartbeat,
    collectorStatus: 'disabled',
    keyRejected: true,
    replaced: true,
    lastError: 'HTTP 401: this collector was replaced by another device',
  };
  const replacedPage = await (await fetch(`${setup.base}/`)).text();
  t.match(replacedPage, 'This box was replaced by another device on the hub; it no longer uploads');
  t.match(replacedPage, `${apiKey.slice(0, 10)}… (refused: this box was replaced)`);
  t.notMatch(replacedPage, 'the hub rejected the API key', 'no generic key error');
  t.notMatch(replacedPage, 'Suspended by the hub');
});
