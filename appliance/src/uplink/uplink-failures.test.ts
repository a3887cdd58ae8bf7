import t from 'tap';
import { harness, KEY, T0 } from './harness.test-helper.ts';
import { unusedPort } from './hub-double.test-helper.ts';
import { makeItem, makeItems } from './fixtures.test-helper.ts';

const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `det-${String(from + i).padStart(4, '0')}`);

t.test('hub down: backoff grows, nothing leaves; hub up: drains oldest first; success resets backoff', async (t) => {
  const port = await unusedPort();
  const h = await harness(t, { port, hubDown: true, random: 0.999, seed: (b) => b.add(...makeItems(120, T0 - 3_600_000)) });
  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    delays.push(h.untilRetryMs());
    await h.run(h.untilRetryMs());
  }
  t.same(delays, [2998, 8986, 26932, 60000, 60000], 'decorrelated jitter, capped at 60 s');
  t.equal(h.buffer.items.size, 120, 'nothing removed while the hub is down');
  t.match(h.uplink.state(), { consecutiveFailures: 6, keyStatus: 'unknown', lastSuccessAtMs: null });
  t.match(h.uplink.state().lastError, { kind: 'network_or_server', message: /ECONNREFUSED/ });

  await h.hub.listen(port);
  await h.run(h.untilRetryMs());
  t.same(h.hub.arrivals, ids(120), 'every detection once, oldest first');
  t.same(
    h.hub.requests.map((r) => r.detectionIds.length),
    [50, 50, 20],
    'drained back to back, no window waits',
  );
  t.match(h.uplink.state(), { consecutiveFailures: 0, retryAtMs: null, keyStatus: 'ok' });

  await h.hub.close();
  h.buffer.add(makeItem(500, h.time.now()));
  await h.run(10_000);
  t.equal(h.untilRetryMs(), 2998, 'after a success the backoff starts again from the bottom');
  t.equal(h.buffer.items.size, 1);
});

t.test('401: key_rejected, everything stays; a new key is tried at once', async (t) => {
  const h = await harness(t);
  const revoked = 'alpr_revoked_key_9999999999';
  h.setKey(revoked);
  h.buffer.add(...makeItems(5, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), { keyStatus: 'rejected', consecutiveFailures: 1, lastError: { kind: 'key_rejected', status: 401 } });
  await h.run(h.untilRetryMs());
  t.equal(h.uplink.state().consecutiveFailures, 2, 'backs off and retries');
  t.equal(h.buffer.items.size, 5, 'nothing removed');
  t.equal(h.hub.stored.size, 0);
  const logs = h.logs.join('\n');
  t.match(logs, /"key_prefix":"alpr_revok"[,}]/, 'the key is named as the hub names it: key_prefix, 10 characters');
  t.notMatch(logs, revoked, 'never in full');

  h.setKey(KEY);
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.buffer.items.size, 0, 'a rotated key does not wait out the old backoff');
  t.match(h.uplink.state(), { keyStatus: 'ok', consecutiveFailures: 0 });
});

t.test('500 in the middle of a drain: delivered batches stay delivered, the rest goes later', async (t) => {
  const h = await harness(t);
  h.hub.script.push({ pass: true }, { status: 500, body: 'db down' });
  h.buffer.add(...makeItems(120, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.buffer.items.size, 70);
  t.same(h.buffer.released, [{ ids: Array.from({ length: 50 }, (_, i) => i + 50), reason: 'HTTP 500: db down' }], 'the failed batch is released');
  t.match(h.uplink.state(), { consecutiveFailures: 1, lastError: { kind: 'network_or_server', status: 500, message: 'HTTP 500: db down' } });
  await h.run(h.untilRetryMs());
  t.same(h.hub.arrivals, ids(120), 'each detection stored once, in order');
  t.same(
    h.hub.requests.map((r) => r.status),
    [201, 500, 201, 201],
  );
});

t.test('timeouts, 429 Retry-After and malformed answers keep items and back off', async (t) => {
  const h = await harness(t, { config: { timeouts: { headersMs: 200, bodyMs: 200 } } });
  h.hub.script.push({ hang: true });
  h.buffer.add(...makeItems(2, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state().lastError, { kind: 'network_or_server', message: /timeout/i });
  h.hub.script.push({ status: 429, body: '', headers: { 'retry-after': '120' } });
  await h.run(h.untilRetryMs());
  t.equal(h.untilRetryMs(), 120_000, 'Retry-After beats a shorter backoff');
  h.hub.script.push({ status: 201, body: '{"accepted":2}' });
  await h.run(h.untilRetryMs());
  t.match(h.uplink.state(), { consecutiveFailures: 3, lastError: { message: /malformed/ } });
  t.equal(h.buffer.items.size, 2);
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.items.size, 0);
});

t.test('400 on a batch: halves until the poison item is alone, then only it is rejected', async (t) => {
  const h = await harness(t);
  h.hub.badRequestPlate = 'POISON';
  h.buffer.add(...makeItems(10, T0 - 60_000).map((item) => (item.id === 6 ? makeItem(6, item.receivedAtMs, { plate: 'POISON' }) : item)));
  h.uplink.kick();
  await h.uplink.idle();
  t.same(
    h.buffer.rejected.map((r) => r.id),
    [6],
  );
  t.match(h.buffer.rejected[0]?.reason, /^HTTP 400/);
  t.same(
    h.hub.arrivals,
    ids(10).filter((id) => id !== 'det-0006'),
    'the rest delivered, order kept',
  );
  t.match(h.uplink.state(), { consecutiveFailures: 0, totals: { stored: 9, rejected: 1 } });
});

t.test('a hub that refuses every item does not empty the buffer', async (t) => {
  const h = await harness(t);
  h.hub.badRequestPlate = 'BAD';
  h.buffer.add(...Array.from({ length: 8 }, (_, i) => makeItem(i, T0 - 60_000 + i, { plate: 'BAD' })));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.buffer.rejected.length, 3, 'at most maxConsecutivePoison (3) items rejected');
  t.match(h.uplink.state().lastError, { kind: 'hub_refused', status: 400, message: /stopped rejecting/ });
  await h.run(h.untilRetryMs());
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.rejected.length, 3, 'retries reject nothing more');
  t.equal(h.buffer.items.size, 5);
});

t.test('a broken buffer or a missing key never kills the loop', async (t) => {
  const h = await harness(t);
  h.buffer.failNext = 1;
  h.buffer.add(...makeItems(3, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), { running: true, consecutiveFailures: 1, lastError: { kind: 'internal', message: /SQLITE_FULL/ } });
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.items.size, 0, 'recovers on the next pass');

  h.setKey(undefined);
  h.buffer.add(...makeItems(3, h.time.now() - 60_000, 10));
  await h.run(30_000);
  t.equal(h.hub.requests.length, 1, 'unclaimed: nothing is sent');
  h.setKey(KEY);
  await h.run(10_000);
  t.equal(h.buffer.items.size, 0, 'the idle poll picks up once a key exists');
});

t.test('stop waits for the upload in flight and leaves no timer', async (t) => {
  const h = await harness(t);
  h.buffer.add(...makeItems(60, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.stop();
  t.equal(h.uplink.state().running, false);
  t.equal(h.time.pendingCount(), 0);
  const sent = h.hub.requests.length;
  h.uplink.kick();
  await h.run(120_000);
  t.equal(h.hub.requests.length, sent, 'nothing after stop');
});
