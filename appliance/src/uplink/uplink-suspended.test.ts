import t from 'tap';
import { harness, KEY, T0 } from './harness.test-helper.ts';
import { makeItems } from './fixtures.test-helper.ts';

/**
 * A site suspended on the hub (docs/uplink.md "Suspended by the hub"): the hub answers every
 * batch 403 `collector_suspended` with Retry-After 60 and stores nothing. The appliance keeps
 * every read, asks again once a minute (never slower: the resume must be noticed), and
 * drains everything once, oldest first, when the site is resumed.
 */
const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `det-${String(from + i).padStart(4, '0')}`);
const MINUTE = 60_000;

t.test('suspended for 10 minutes: reads kept, one attempt per Retry-After, then a full drain with no duplicate', async (t) => {
  // random 0.999: a backoff would give 2998, 8986, 26932 ms..., so a steady 60 s is the Retry-After alone.
  const h = await harness(t, { random: 0.999 });
  h.hub.suspended = true;
  let next = 0;
  const arrive = (count: number) => {
    h.buffer.add(...makeItems(count, h.time.now() - 30_000, next));
    next += count;
    h.uplink.kick();
  };
  arrive(12);
  await h.uplink.idle();
  t.match(h.uplink.state(), { suspended: true, suspendedSinceMs: T0, consecutiveFailures: 0, keyStatus: 'ok', lastError: null });
  t.equal(h.untilRetryMs(), MINUTE, 'waits the Retry-After');

  // Reads keep coming, every 10 s, each one kicking the loop.
  for (let s = 10; s <= 600; s += 10) {
    await h.run(10_000);
    arrive(2);
    await h.uplink.idle();
  }
  await h.run(5_000);
  const state = h.uplink.state();
  t.equal(h.buffer.items.size, 12 + 60 * 2, 'every read is still buffered');
  t.same(h.buffer.rejected, [], 'nothing marked rejected');
  t.equal(h.hub.stored.size, 0, 'the hub stored nothing');
  t.match(state, { suspended: true, suspendedSinceMs: T0, consecutiveFailures: 0, totals: { rejected: 0, stored: 0 } });
  const attempts = h.hub.requests.map((r) => r.atMs);
  t.same(
    attempts,
    Array.from({ length: 11 }, (_, i) => T0 + i * MINUTE),
    'one attempt a minute, steady: no backoff grows while suspended, and reads do not add attempts',
  );
  t.ok(
    h.hub.requests.every((r) => r.status === 403 && r.detectionIds.length === 0),
    'each a whole batch refused before the hub read it (never split)',
  );

  // Resumed on the hub: the next Retry-After attempt goes through and the backlog drains back to back.
  h.hub.suspended = false;
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.items.size, 0, 'everything drained');
  t.same(h.hub.arrivals, ids(next), 'each read once, oldest first');
  t.match(h.uplink.state(), { suspended: false, suspendedSinceMs: null, retryAtMs: null, totals: { stored: next, duplicate: 0, rejected: 0 } });
  t.equal(h.time.now(), T0 + 11 * MINUTE, 'the resume is noticed within one Retry-After');
  t.match(h.logs.join('\n'), /the hub suspended this collector/);
  t.notMatch(h.logs.join('\n'), KEY);
});

t.test('the heartbeat says active: the backlog goes at once, without waiting out the Retry-After', async (t) => {
  const h = await harness(t);
  h.hub.suspended = true;
  h.buffer.add(...makeItems(70, T0 - MINUTE));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.untilRetryMs(), MINUTE);
  await h.run(20_000);
  h.hub.suspended = false;
  h.uplink.hubStatus('active');
  await h.uplink.idle();
  t.equal(h.time.now(), T0 + 20_000, 'no clock movement needed');
  t.equal(h.buffer.items.size, 0);
  t.same(h.hub.arrivals, ids(70));
  t.same(
    h.hub.requests.map((r) => r.status),
    [403, 201, 201],
  );
  t.match(h.uplink.state(), { suspended: false, retryAtMs: null, totals: { stored: 70, duplicate: 0 } });
});

t.test('the heartbeat says disabled with an empty buffer: suspended without an upload; active clears it', async (t) => {
  const h = await harness(t);
  await h.run(5_000);
  h.uplink.hubStatus('disabled');
  t.match(h.uplink.state(), { suspended: true, suspendedSinceMs: T0 + 5_000 });
  await h.run(MINUTE);
  h.uplink.hubStatus('disabled');
  t.equal(h.uplink.state().suspendedSinceMs, T0 + 5_000, 'since the first time it was seen');
  h.uplink.hubStatus('active');
  await h.uplink.idle();
  t.match(h.uplink.state(), { suspended: false, suspendedSinceMs: null });
  t.equal(h.hub.requests.length, 0, 'nothing to send, nothing sent');
});

t.test('a resume heard while the refused request was out: one more try at once, not a minute later', async (t) => {
  const h = await harness(t);
  h.hub.suspended = true;
  h.buffer.add(...makeItems(3, T0 - MINUTE));
  h.uplink.kick();
  // The heartbeat answer overtakes the upload's: the 403 it gets was decided before the resume.
  h.hub.suspended = false;
  h.hub.script.push({
    status: 403,
    body: JSON.stringify({ error: { code: 'forbidden', message: 'suspended', reason: 'collector_suspended' } }),
    headers: { 'retry-after': '60' },
  });
  h.uplink.hubStatus('active');
  await h.uplink.idle();
  t.equal(h.buffer.items.size, 0, 'delivered without waiting');
  t.match(h.uplink.state(), { suspended: false });

  // Used up: a 403 that really is the hub's current word is believed.
  h.hub.suspended = true;
  h.uplink.hubStatus('active');
  await h.run(1);
  h.buffer.add(...makeItems(2, h.time.now() - MINUTE, 10));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), { suspended: true });
  t.equal(h.untilRetryMs(), MINUTE);
});

t.test('a box replaced by another device: 401 collector_replaced keeps everything, backs off, says why', async (t) => {
  const h = await harness(t, { random: 0.999 });
  h.hub.replacedKeys.add(KEY);
  h.buffer.add(...makeItems(5, T0 - MINUTE));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), {
    keyStatus: 'rejected',
    replaced: true,
    suspended: false,
    consecutiveFailures: 1,
    lastError: { kind: 'key_rejected', status: 401, message: /replaced by another device/ },
  });
  t.equal(h.untilRetryMs(), 2998, 'the key_rejected backoff, as before');
  await h.run(h.untilRetryMs());
  t.equal(h.uplink.state().consecutiveFailures, 2);
  t.equal(h.buffer.items.size, 5, 'nothing deleted');
  t.same(h.buffer.rejected, []);
  t.match(h.logs.join('\n'), /replaced by another device on the hub/);

  // A new claim gives a new key: tried at once, and the box is no longer "replaced".
  const fresh = 'alpr_fresh_key_after_reclaim_0001';
  h.hub.keys.add(fresh);
  h.setKey(fresh);
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), { replaced: false, keyStatus: 'ok' });
  t.equal(h.buffer.items.size, 0);
});
