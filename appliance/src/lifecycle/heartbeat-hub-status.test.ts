import t from 'tap';
import type { Test } from 'tap';
import { hubNotice } from '../diagnostics/hub-notice.ts';
import { makeItems } from '../uplink/fixtures.test-helper.ts';
import { harness, KEY, T0 } from '../uplink/harness.test-helper.ts';
import type { Timers } from '../uplink/ports.ts';
import type { HubCollectorStatus } from '../uplink/uplink.ts';
import type { CommandRunner } from './commands.ts';
import { startHeartbeat, type HeartbeatDeps } from './heartbeat.ts';

/**
 * The heartbeat carries the hub's word on this collector (`collector_status`, a 401
 * `collector_replaced`) to the uplink, over real HTTP to the same hub double the uploads go
 * to. Beats are taken by hand (`beatNow`): the heartbeat's own timer never fires here.
 */
const noCommands: CommandRunner = { handle: async () => ({ kind: 'refused', reason: 'none expected' }), configVersion: () => 0 };
const never: Timers = { setTimeout: () => 0, clearTimeout: () => undefined };
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function heartbeatOn(t: Test, hubUrl: string, now: () => number, onHubStatus: HeartbeatDeps['onHubStatus'], apiKey = KEY) {
  const heartbeat = startHeartbeat({
    hubUrl,
    apiKey: () => apiKey,
    clock: { now },
    timers: never,
    random: () => 0.5,
    log: quiet,
    intervalSeconds: 60,
    report: () => ({ uptime_seconds: 1, queue_depth: 0, cameras_online: 0 }),
    runner: noCommands,
    ...(onHubStatus ? { onHubStatus } : {}),
  });
  t.teardown(() => heartbeat.stop());
  return heartbeat;
}

t.test('collector_status and collector_replaced reach the listener and the heartbeat state', async (t) => {
  const h = await harness(t);
  const heard: HubCollectorStatus[] = [];
  const heartbeat = heartbeatOn(
    t,
    h.hubUrl,
    () => h.time.now(),
    (s) => void heard.push(s),
  );
  await heartbeat.beatNow();
  t.match(heartbeat.state(), { collectorStatus: 'active', replaced: false, keyRejected: false });
  h.hub.suspended = true;
  await heartbeat.beatNow();
  t.match(heartbeat.state(), { collectorStatus: 'disabled', lastError: null });
  h.hub.replacedKeys.add(KEY);
  await heartbeat.beatNow();
  t.match(heartbeat.state(), { replaced: true, keyRejected: true, lastError: /^HTTP 401/ });
  t.same(heard, ['active', 'disabled', 'replaced']);
  t.same(h.hub.heartbeats, [200, 200, 401]);
});

t.test('a listener that throws costs nothing: the beat still counts as answered', async (t) => {
  const h = await harness(t);
  const heartbeat = heartbeatOn(
    t,
    h.hubUrl,
    () => h.time.now(),
    () => {
      throw new Error('listener bug');
    },
  );
  await heartbeat.beatNow();
  t.match(heartbeat.state(), { lastError: null, collectorStatus: 'active', consecutiveFailures: 0 });
});

t.test('heartbeat and uplink together: suspended with an empty buffer, reads kept, drained right after the resume', async (t) => {
  const h = await harness(t);
  const heartbeat = heartbeatOn(
    t,
    h.hubUrl,
    () => h.time.now(),
    (s) => h.uplink.hubStatus(s),
  );
  h.hub.suspended = true;
  await h.run(10_000);
  await heartbeat.beatNow();
  t.match(h.uplink.state(), { suspended: true, suspendedSinceMs: T0 + 10_000 }, 'known from the heartbeat alone');
  t.equal(h.hub.requests.length, 0, 'no upload was needed to learn it');
  t.match(hubNotice(h.uplink.state(), heartbeat.state()), {
    kind: 'suspended',
    message: `Suspended by the hub since ${new Date(T0 + 10_000).toISOString()}: readings are kept here and will be sent when the site is resumed`,
  });

  h.buffer.add(...makeItems(30, h.time.now() - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.untilRetryMs(), 60_000, 'the upload met the 403 and waits its Retry-After');
  await h.run(15_000);
  h.hub.suspended = false;
  await heartbeat.beatNow();
  await h.uplink.idle();
  t.equal(h.buffer.items.size, 0, '15 s into a 60 s wait: drained on the heartbeat, not 45 s later');
  t.equal(h.hub.arrivals.length, 30);
  t.equal(new Set(h.hub.arrivals).size, 30, 'no duplicate');
  t.match(h.uplink.state(), { suspended: false, suspendedSinceMs: null });
  t.equal(hubNotice(h.uplink.state(), heartbeat.state()), null);
});

t.test('replaced seen by the heartbeat with nothing to upload: the uplink says so too', async (t) => {
  const h = await harness(t);
  const heartbeat = heartbeatOn(
    t,
    h.hubUrl,
    () => h.time.now(),
    (s) => h.uplink.hubStatus(s),
  );
  h.hub.replacedKeys.add(KEY);
  await heartbeat.beatNow();
  t.match(h.uplink.state(), { replaced: true, keyStatus: 'rejected' });
  t.match(hubNotice(h.uplink.state(), heartbeat.state()), { kind: 'replaced', message: /replaced by another device on the hub; it no longer uploads/ });
});
