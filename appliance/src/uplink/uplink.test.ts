import t from 'tap';
import { harness, KEY, T0 } from './harness.test-helper.ts';
import { makeItem, makeItems } from './fixtures.test-helper.ts';

const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `det-${String(from + i).padStart(4, '0')}`);

t.test('happy path: a backlog drains in full batches, each detection once, images intact', async (t) => {
  const items = makeItems(120, T0 - 60_000);
  const h = await harness(t, { seed: (b) => b.add(...items) });
  // No clock movement at all: catching up needs no window.
  t.same(
    h.hub.requests.map((r) => r.detectionIds.length),
    [50, 50, 20],
    'three batches back to back',
  );
  t.same(h.hub.arrivals, ids(120), 'oldest first, each once');
  t.equal(h.buffer.items.size, 0, 'buffer empty');
  t.same(
    h.buffer.uploaded,
    items.map((i) => i.id),
  );
  for (const item of items) {
    const stored = h.hub.stored.get(item.detection.detection_id);
    t.ok(stored?.images['plate_crop']?.equals(Buffer.from(item.images.plate_crop ?? [])), `crop ${item.id} intact`);
  }
  const state = h.uplink.state();
  t.match(state, { keyStatus: 'ok', consecutiveFailures: 0, lastSuccessAtMs: T0, lastError: null, retryAtMs: null });
  t.match(state.totals, { batches: 3, requests: 3, stored: 120, duplicate: 0, rejected: 0 });
  t.notMatch(h.logs.join('\n'), KEY, 'the key is never logged');
});

t.test('triggers: window for a trickle, count at once, per-camera window', async (t) => {
  const h = await harness(t, { config: { windows: { defaultSeconds: 10, forCamera: (id) => (id === 'fast' ? 5 : undefined) } } });
  h.buffer.add(makeItem(0, T0));
  h.uplink.kick();
  await h.run(9_999);
  t.equal(h.hub.requests.length, 0, 'one fresh item waits for the 10 s window');
  await h.run(1);
  t.same(h.hub.arrivals, ids(1), 'sent when the window closes');

  h.buffer.add(...makeItems(50, h.time.now(), 100));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.hub.requests.length, 2, '50 items go at once on kick, without waiting');
  t.equal(h.hub.arrivals.length, 51);

  h.buffer.add(makeItem(200, h.time.now(), { camera: 'slow' }), makeItem(201, h.time.now() + 1, { camera: 'fast' }));
  h.uplink.kick();
  await h.run(4_999);
  t.equal(h.hub.requests.length, 2, 'nothing before the fast camera window');
  await h.run(2);
  t.equal(h.hub.requests.length, 3, 'the smallest window among waiting cameras (5 s) applies to the batch');
  t.equal(h.buffer.items.size, 0);
});

t.test('202 backpressure: no upload before the recommended delay, buffering goes on', async (t) => {
  const h = await harness(t);
  h.hub.backpressure = { active: true, recommended_delay_seconds: 20, reason: 'high_load' };
  h.buffer.add(...makeItems(120, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.hub.requests.length, 1, 'one batch, then the hub asked us to wait');
  t.equal(h.buffer.items.size, 70, 'the 202 batch counts as delivered');
  t.match(h.uplink.state(), { backpressureUntilMs: T0 + 20_000, backpressureReason: 'high_load', consecutiveFailures: 0 });
  h.buffer.add(...makeItems(60, T0, 1000));
  h.uplink.kick();
  await h.run(19_999);
  t.equal(h.hub.requests.length, 1, 'kicks and a larger backlog do not break the delay');
  h.hub.backpressure = undefined;
  await h.run(1);
  t.equal(h.hub.requests.length, 4, 'resumes after 20 s and catches up');
  t.equal(h.hub.arrivals.length, 180);
  t.equal(h.buffer.items.size, 0);
  t.match(h.uplink.state(), { backpressureUntilMs: null, backpressureReason: null });
});

t.test('the hub lists only some items: the others stay buffered and go again', async (t) => {
  const h = await harness(t);
  h.hub.omit = new Set(['det-0001', 'det-0003']);
  h.buffer.add(...makeItems(5, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.same([...h.buffer.items.keys()], [1, 3], 'unlisted items kept');
  t.same(h.buffer.released[0], { ids: [1, 3], reason: 'not acknowledged' }, 'and handed back to the queue');
  t.same(h.buffer.rejected, []);
  t.same(
    h.hub.requests.map((r) => r.detectionIds),
    [ids(5), ['det-0001', 'det-0003']],
    'sent again at once while progress is made',
  );
  t.equal(h.uplink.state().consecutiveFailures, 1, 'a batch with no acknowledgement at all counts as a failure');
  t.match(h.uplink.state().lastError, { kind: 'no_progress' });
  h.hub.omit.clear();
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.items.size, 0);
  t.same(h.hub.arrivals.sort(), ids(5));
});

t.test('a lost response: the retry gets duplicate, which counts as delivered', async (t) => {
  const h = await harness(t);
  h.hub.script.push({ dropAfterStore: true });
  h.buffer.add(...makeItems(3, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.equal(h.hub.stored.size, 3, 'the hub committed them');
  t.equal(h.buffer.items.size, 3, 'but without an answer nothing leaves the buffer');
  await h.run(h.untilRetryMs());
  t.equal(h.buffer.items.size, 0, 'duplicate = acknowledged');
  t.match(h.uplink.state().totals, { stored: 0, duplicate: 3 });
  t.equal(h.hub.arrivals.length, 3, 'still stored once on the hub');
});

t.test('rejected items go to markRejected with the hub reason', async (t) => {
  const h = await harness(t);
  h.hub.rejectPlate = 'XY987ZT';
  h.buffer.add(...makeItems(4, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.same(h.buffer.rejected, [{ id: 1, reason: 'plate refused by policy' }]);
  t.same(h.buffer.uploaded, [0, 2, 3]);
  t.equal(h.buffer.items.size, 0);
  t.match(h.uplink.state().totals, { stored: 3, rejected: 1 });
});

t.test('a 202 that acknowledges nothing still holds uploads for the recommended delay', async (t) => {
  const h = await harness(t);
  h.hub.backpressure = { active: true, recommended_delay_seconds: 30, reason: 'queue_depth' };
  h.hub.omit = new Set(['det-0000']);
  h.buffer.add(makeItem(0, T0 - 60_000));
  h.uplink.kick();
  await h.uplink.idle();
  t.match(h.uplink.state(), { consecutiveFailures: 1, backpressureUntilMs: T0 + 30_000, lastError: { kind: 'no_progress' } });
  await h.run(29_999);
  t.equal(h.hub.requests.length, 1, 'the short backoff does not override the hub delay');
  h.hub.omit.clear();
  await h.run(1);
  t.equal(h.hub.requests.length, 2);
  t.equal(h.buffer.items.size, 0);
});
