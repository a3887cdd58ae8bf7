/**
 * Health alerts end to end on one hub (docs/health.md): real HTTP heartbeats and batch uploads
 * into real PostgreSQL (or PGlite), time moved by the injected clock, the evaluator run once a
 * simulated minute as the worker runs it.
 */
import t from 'tap';
import { HEALTH_HEARERS } from '../hearers.ts';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { jpegLike, startTestHub } from '../ingest/uploads.test-helper.ts';
import { evaluateHealth, type HealthContext } from './evaluate.ts';
import { alertsOf, newSite, seedHistory, tick } from './health.test-helper.ts';
import { listHealthAlerts } from './present.ts';

// A Wednesday, 10:00 UTC.
const T0 = new Date('2026-01-14T10:00:00.000Z');
const db = await testDatabase(t);
const clock = movableClock(T0);
const hub = await startTestHub({ db, clock });
t.teardown(() => hub.close());
const ctx: HealthContext = { db, clock, log: createLog('silent'), config: hub.deps.config, hearers: HEALTH_HEARERS };
const flat = (ticks: string[][]) => ticks.flat();
const accepted = (status: number) => status === 201 || status === 202; // 202: stored, under backpressure

// Each test starts a week after the last (the clock never runs backwards) and suspends its
// site when done, so no test sees another's collectors go silent.
let week = 0;
const start = (): Date => {
  const at = new Date(T0.getTime() + week++ * 7 * 24 * 3_600_000);
  clock.set(at);
  return at;
};
const retire = async (id: string) => {
  await db.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [id]);
  await evaluateHealth(ctx);
};

t.test('a camera stopped behind a healthy collector: one camera_quiet within 60 minutes, closed when reads resume', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Quiet depot');
  await seedHistory(ctx, site.id, 'gate-west', 40, T0);
  await site.beat();
  t.ok(accepted(await site.upload(5, 'gate-west')));
  t.same((await evaluateHealth(ctx)).opened, [], 'reading as usual: nothing');

  const ticks = await tick(ctx, clock, [site], 90);
  const openedAt = ticks.findIndex((ids) => ids.length > 0) + 1;
  t.equal(openedAt, 60, 'opened at the 60th silent minute (40 usual an hour: 40 expected)');
  t.equal(flat(ticks).length, 1, 'once, not at every one of the 30 ticks after');
  const [alert] = await alertsOf(ctx, site.id);
  t.match(alert, { kind: 'camera_quiet', camera_id: 'gate-west', closed_at: null });
  t.equal(alert?.message, 'Camera gate-west at Quiet depot has read no plates for 60 minutes; usually 40 an hour at this time.');
  t.notOk(
    (await alertsOf(ctx, site.id)).some((a) => a.kind === 'collector_silent'),
    'the collector itself is fine',
  );

  t.ok(accepted(await site.upload(20, 'gate-west')), 'the camera reads again');
  const after = await evaluateHealth(ctx);
  t.same(after.closed, [alert?.id], 'closed at the next look');
  t.same(flat(await tick(ctx, clock, [site], 5)), [], 'and not reopened');
  t.equal((await alertsOf(ctx, site.id)).length, 1, 'one alert in the history');
  await retire(site.id);
});

t.test('a slow camera: camera_slow below a quarter of usual, closed at half', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Slow depot');
  // 40 an hour for 4 weeks, except the two hours before now: 3 each.
  await seedHistory(ctx, site.id, 'gate-slow', 40, new Date(T0.getTime() - 2 * 3_600_000));
  await db.sql(`INSERT INTO camera_read_hours (collector_id, camera_id, hour, reads) VALUES ($1, 'gate-slow', $2, 3), ($1, 'gate-slow', $3, 3)`, [
    site.id,
    new Date(T0.getTime() - 2 * 3_600_000).toISOString(),
    new Date(T0.getTime() - 3_600_000).toISOString(),
  ]);
  clock.set(new Date(T0.getTime() + 30 * 60_000));
  await site.beat();
  t.ok(accepted(await site.upload(3, 'gate-slow')));
  const first = await evaluateHealth(ctx);
  t.equal(first.opened.length, 1);
  const ticks = await tick(ctx, clock, [site], 10);
  t.same(flat(ticks), [], 'no repeat over 10 more ticks');
  const [alert] = await alertsOf(ctx, site.id);
  t.match(alert, { kind: 'camera_slow', camera_id: 'gate-slow', closed_at: null });
  t.match(alert?.message, /read 9 plates in the last 3 hours; usually about 100 by now/);

  t.ok(accepted(await site.upload(60, 'gate-slow')), 'back to normal');
  t.same((await evaluateHealth(ctx)).closed, [alert?.id]);
  await retire(site.id);
});

t.test('a collector whose heartbeats stop: collector_silent once, closed by the next heartbeat', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Silent depot');
  await site.beat();
  // 3 intervals of 60 s is the one online rule: offline from 181 s.
  const ticks = await tick(ctx, clock, [], 10);
  t.equal(ticks.findIndex((ids) => ids.length > 0) + 1, 4, 'at the first look past 180 s');
  t.equal(flat(ticks).length, 1);
  const [alert] = await alertsOf(ctx, site.id);
  t.match(alert, { kind: 'collector_silent', camera_id: null, message: 'Collector Silent depot has sent no heartbeat for 4 minutes.' });
  await site.beat();
  t.same((await evaluateHealth(ctx)).closed, [alert?.id]);
  await retire(site.id);
});

t.test('cameras the appliance reports offline, with a clock warning, or with a stuck cursor', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Camera depot');
  const tenMinutesAgo = new Date(T0.getTime() - 10 * 60_000).toISOString();
  const bad = [
    { id: 'cam-w', name: 'Gate west', state: 'OFFLINE' as const, last_success_at: tenMinutesAgo, last_error: 'connection refused' },
    { id: 'cam-e', name: 'Gate east', state: 'ONLINE' as const, clock_warnings: ['The camera clock is 7 minutes ahead.'], cursor_age_seconds: 3600 },
    { id: 'cam-n', name: 'Gate north', state: 'OFFLINE' as const, last_success_at: new Date(T0.getTime() - 60_000).toISOString() },
  ];
  await site.beat(bad);
  const first = await evaluateHealth(ctx);
  t.equal(first.opened.length, 3);
  const alerts = await alertsOf(ctx, site.id);
  t.same(
    alerts.map((a) => `${a.kind}:${a.camera_id}`).sort(),
    ['camera_clock:cam-e', 'camera_offline:cam-w', 'cursor_stuck:cam-e'],
    'gate north is 1 minute offline: under 5, not yet',
  );
  t.match(
    alerts.find((a) => a.kind === 'camera_offline')?.message,
    'Camera Gate west at Camera depot is offline: the collector cannot reach it since 10 minutes ago: connection refused.',
  );
  for (let i = 0; i < 5; i++) {
    clock.advance(60_000);
    await site.beat(bad);
    const r = await evaluateHealth(ctx);
    if (i === 3) t.same(r.opened.length, 1, 'gate north at 5 minutes offline');
    else t.same(r.opened, [], 'no repeat');
  }
  await site.beat([
    { id: 'cam-w', state: 'ONLINE' },
    { id: 'cam-e', state: 'ONLINE', clock_warnings: [], cursor_age_seconds: 20 },
    { id: 'cam-n', state: 'ONLINE' },
  ]);
  t.equal((await evaluateHealth(ctx)).closed.length, 4, 'all four close');
  await retire(site.id);
});

t.test('a flooding site trips the load thresholds once each, and they close after 10 calm minutes', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Flood depot');
  await site.beat();
  for (let i = 0; i < 4; i++) t.ok(accepted(await site.upload(150, 'flood-cam')), `batch ${i + 1} of 150`);
  t.ok(accepted(await site.upload(100, 'flood-cam', { badPlates: 20 })), 'a batch with 20 rejected items');
  // Two images of 5.5 MB: an 11 MB request, under the hub's 12 MB cap.
  t.ok(accepted(await site.upload(2, 'flood-cam', { images: [jpegLike(5.5 * 1024 * 1024), jpegLike(5.5 * 1024 * 1024)] })));
  const first = await evaluateHealth(ctx);
  t.equal(first.opened.length, 3, 'events per minute, batch size, request size');
  const kinds = (await alertsOf(ctx, site.id)).map((a) => a.kind).sort();
  t.same(kinds, ['load_batch_size', 'load_events_per_minute', 'load_request_size']);
  t.notOk(kinds.includes('load_error_rate'), '20 of 702 is 2.8 %: under 5 %');
  const messages = (await alertsOf(ctx, site.id)).map((a) => a.message);
  t.ok(messages.includes('Collector Flood depot sent 702 plate reads in one minute (the limit is 500).'));
  t.ok(messages.includes('Collector Flood depot sent a batch of 150 detections (the limit is 100).'));

  // A batch of 100 all rejected: 120 errors of 802 in the 15-minute window, 15 %.
  clock.advance(60_000);
  t.ok(accepted(await site.upload(100, 'flood-cam', { badPlates: 100 })));
  t.same((await evaluateHealth(ctx)).opened.length, 1, 'the error rate');
  t.ok((await alertsOf(ctx, site.id)).some((a) => a.kind === 'load_error_rate' && a.closed_at === null));

  const ticks = await tick(ctx, clock, [site], 8);
  t.same(flat(ticks), [], 'no repeat while they hold');
  const closes: string[] = [];
  for (let i = 0; i < 20; i++) {
    clock.advance(60_000);
    await site.beat();
    closes.push(...(await evaluateHealth(ctx)).closed);
  }
  t.equal(closes.length, 4, 'each closes once the window is calm');
  t.equal((await alertsOf(ctx, site.id)).filter((a) => a.closed_at === null).length, 0);
  await retire(site.id);
});

t.test('a suspended collector has no open health alerts', async (t) => {
  const T0 = start();
  const site = await newSite(hub, clock, 'Suspended depot');
  await site.beat();
  clock.advance(10 * 60_000);
  t.equal((await evaluateHealth(ctx)).opened.length, 1);
  await db.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [site.id]);
  t.equal((await evaluateHealth(ctx)).closed.length, 1);
  const page = await listHealthAlerts(db, { state: 'closed', collectorId: site.id, limit: 10 });
  t.equal(page.items[0]?.collector_name, 'Suspended depot');
  await retire(site.id);
});
