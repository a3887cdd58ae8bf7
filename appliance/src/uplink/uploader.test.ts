import t from 'tap';
import type { Test } from 'tap';
import { Agent } from 'undici';
import { encodeBatch } from './encode-batch.ts';
import { HubDouble, unusedPort } from './hub-double.test-helper.ts';
import { makeItems } from './fixtures.test-helper.ts';
import type { UploaderDeps } from './upload.ts';
import { batchUrl, uploadBatch } from './upload.ts';

const KEY = 'alpr_test_key_0123456789abcdef';
const T0 = Date.UTC(2025, 0, 1);

const setup = async (t: Test) => {
  const hub = new HubDouble();
  const port = await hub.listen();
  const dispatcher = new Agent({ connections: 1 });
  t.teardown(async () => {
    await hub.close();
    await dispatcher.close();
  });
  const deps: UploaderDeps = {
    dispatcher,
    hubUrl: `http://127.0.0.1:${port}/`,
    timeouts: { headersMs: 300, bodyMs: 300 },
    nowMs: () => T0,
  };
  return { hub, deps };
};

t.test('batchUrl joins without a double slash', async (t) => {
  t.equal(batchUrl('https://hub.example.org/'), 'https://hub.example.org/api/v1/detections/batch');
  t.equal(batchUrl('https://hub.example.org/base'), 'https://hub.example.org/base/api/v1/detections/batch');
});

t.test('201: the hub stores every detection with its exact images', async (t) => {
  const { hub, deps } = await setup(t);
  const items = makeItems(4, T0);
  const outcome = await uploadBatch(deps, KEY, encodeBatch(items));
  t.equal(outcome.kind, 'accepted');
  if (outcome.kind !== 'accepted') return;
  t.equal(outcome.status, 201);
  t.same(
    outcome.results.map((r) => r.status),
    ['stored', 'stored', 'stored', 'stored'],
  );
  t.equal(hub.requests[0]?.apiKey, KEY, 'key sent in X-API-Key');
  for (const item of items) {
    const stored = hub.stored.get(item.detection.detection_id);
    t.ok(stored?.images['plate_crop']?.equals(Buffer.from(item.images.plate_crop ?? [])), 'crop intact');
    if (item.images.full_scene) t.ok(stored?.images['full_scene']?.equals(Buffer.from(item.images.full_scene)), 'scene intact');
  }
  const again = await uploadBatch(deps, KEY, encodeBatch(items));
  t.same(again.kind === 'accepted' && again.results.map((r) => r.status), ['duplicate', 'duplicate', 'duplicate', 'duplicate']);
});

t.test('202 carries the backpressure object', async (t) => {
  const { hub, deps } = await setup(t);
  hub.backpressure = { active: true, recommended_delay_seconds: 15, reason: 'high_load' };
  const outcome = await uploadBatch(deps, KEY, encodeBatch(makeItems(1, T0)));
  t.same(outcome.kind === 'accepted' && { status: outcome.status, bp: outcome.backpressure }, {
    status: 202,
    bp: { active: true, recommended_delay_seconds: 15, reason: 'high_load' },
  });
});

t.test('401, 5xx, malformed, oversized, hang and refused connection', async (t) => {
  const { hub, deps } = await setup(t);
  const batch = encodeBatch(makeItems(2, T0));
  t.same(await uploadBatch(deps, 'alpr_wrong_key', batch), { kind: 'key_rejected', status: 401 });

  hub.script.push({ status: 500, body: 'db down' });
  t.same(await uploadBatch(deps, KEY, batch), { kind: 'retry', status: 500, reason: 'HTTP 500: db down' });

  hub.script.push({ status: 201, body: '{"accepted":"many"}' });
  t.same(await uploadBatch(deps, KEY, batch), { kind: 'retry', status: 201, reason: 'HTTP 201 with a malformed batch response' });

  hub.script.push({ status: 201, body: 'x'.repeat(2 * 1024 * 1024) });
  t.same(await uploadBatch(deps, KEY, batch), { kind: 'retry', status: 201, reason: 'HTTP 201 with an oversized body' });

  hub.script.push({ hang: true });
  const hung = await uploadBatch(deps, KEY, batch);
  t.equal(hung.kind, 'retry');
  t.match(hung.kind === 'retry' ? hung.reason : '', /^network: .*(timeout|Timeout)/i, 'headers timeout');
  t.equal(hub.stored.size, 0, 'nothing stored by any failing request');

  const refused = await uploadBatch({ ...deps, hubUrl: `http://127.0.0.1:${await unusedPort()}` }, KEY, batch);
  t.match(refused, { kind: 'retry', reason: /^network: ECONNREFUSED/ });
  t.notMatch(JSON.stringify(refused), KEY, 'the key never shows in an outcome');
});

t.test('400 and 413 are content rejections', async (t) => {
  const { hub, deps } = await setup(t);
  hub.script.push({ status: 413, body: JSON.stringify({ error: { code: 'too_large', message: 'body over 10 MB' } }) });
  t.same(await uploadBatch(deps, KEY, encodeBatch(makeItems(1, T0))), {
    kind: 'content_rejected',
    status: 413,
    reason: 'HTTP 413: too_large: body over 10 MB',
  });
  hub.badRequestPlate = 'AB123CD';
  t.match(await uploadBatch(deps, KEY, encodeBatch(makeItems(1, T0))), { kind: 'content_rejected', status: 400 });
});
