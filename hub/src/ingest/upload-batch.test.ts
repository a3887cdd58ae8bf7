/**
 * The tests' one upload helper (uploadBatch in uploads.test-helper.ts) accepts what a
 * collector accepts: 201, and 202 with backpressure (stored), from a real hub; 429 and 503
 * tried again after Retry-After, a bounded number of times; anything else is an error.
 */
import t from 'tap';
import { testDatabase } from '../db/database.test-helper.ts';
import { sampleDetection, startTestHub, uploadBatch, UPLOAD_ATTEMPTS, type BatchTarget } from './uploads.test-helper.ts';

t.test('a real hub: 201 when calm, 202 with backpressure under load, both stored', async (t) => {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db });
  t.teardown(() => hub.close());
  hub.deps.load.override({ dbWriteLatencyMs: 0, imageStoreLatencyMs: 0 });
  const calm = await uploadBatch(hub, hub.apiKey, [{ detection: sampleDetection() }]);
  t.match(calm, { status: 201, accepted: 1, results: [{ status: 'stored' }] });
  t.equal(calm.backpressure, undefined);

  hub.deps.load.override({ dbWriteLatencyMs: 0, imageStoreLatencyMs: 0, cpuPercent: 95 });
  const loaded = await uploadBatch(hub, hub.apiKey, [{ detection: sampleDetection() }, { detection: sampleDetection() }]);
  t.match(loaded, { status: 202, accepted: 2, backpressure: { active: true, reason: 'high_cpu' } }, 'a 202 is success, not an error');
  const rows = await db.sql<{ n: string }>('SELECT count(*) AS n FROM detections');
  t.equal(rows[0]?.n, '3', 'both batches stored');

  await t.rejects(uploadBatch(hub, 'not-a-key', [{ detection: sampleDetection() }]), /batch 401/, 'a refusal is an error');
});

/** A stand-in for the app: answers from a script, records each attempt's time. */
function scripted(answers: Array<() => Response>): BatchTarget & { times: number[] } {
  const times: number[] = [];
  return {
    times,
    request: () => {
      times.push(Date.now());
      const next = answers.shift();
      if (!next) throw new Error('no answer left');
      return next();
    },
  };
}
const stored = () => Response.json({ accepted: 1, results: [{ index: 0, detection_id: 'd-1', status: 'stored', id: '1' }] }, { status: 201 });

t.test('429 and 503 are tried again after Retry-After; the batch then goes in', async (t) => {
  const target = scripted([
    () => Response.json({ detail: 'Rate limit exceeded' }, { status: 429, headers: { 'retry-after': '1' } }),
    () => Response.json({ error: { code: 'unavailable', message: 'image store failing' } }, { status: 503 }),
    stored,
  ]);
  const answer = await uploadBatch(target, 'key', [{ detection: sampleDetection() }]);
  t.equal(answer.status, 201);
  t.equal(target.times.length, 3, 'three attempts');
  const [first = 0, second = 0] = target.times;
  t.ok(second - first >= 950, `waited the Retry-After of 1 s (${second - first} ms)`);
});

t.test('bounded: a hub that keeps answering 503 is an error after the last attempt', async (t) => {
  const target = scripted(Array.from({ length: UPLOAD_ATTEMPTS }, () => () => new Response('busy', { status: 503, headers: { 'retry-after': '0' } })));
  await t.rejects(
    uploadBatch(target, 'key', [{ detection: sampleDetection() }]),
    new RegExp(`batch 503 \\(attempt ${UPLOAD_ATTEMPTS} of ${UPLOAD_ATTEMPTS}\\)`),
  );
  t.equal(target.times.length, UPLOAD_ATTEMPTS);
});

t.test('a 400, or a 2xx without a batch answer, is an error at once', async (t) => {
  const bad = scripted([() => Response.json({ error: { code: 'bad_request', message: 'metadata missing' } }, { status: 400 })]);
  await t.rejects(uploadBatch(bad, 'key', [{ detection: sampleDetection() }]), /batch 400/);
  t.equal(bad.times.length, 1, 'not tried again');
  const odd = scripted([() => Response.json({ ok: true }, { status: 201 })]);
  await t.rejects(uploadBatch(odd, 'key', [{ detection: sampleDetection() }]), /malformed answer/);
});
