import t from 'tap';
import { uploadChunk, type ChunkPlan } from './paced-collectors.ts';

/**
 * The collectors on a virtual clock: time moves only when every collector waits (on a sleep
 * or on the hub's answer), straight to the next due timer. The hub answers each batch
 * SERVICE_MS after it is posted.
 */
const SERVICE_MS = 50;

async function simulate(batches: number, plan: ChunkPlan): Promise<{ latencies: number[]; posts: { at: number; key: string }[]; chunkMs: number }> {
  let now = 0;
  const timers: { at: number; fire: () => void }[] = [];
  const wait = (ms: number) => new Promise<void>((resolve) => timers.push({ at: now + ms, fire: resolve }));
  const latencies: number[] = [];
  const posts: { at: number; key: string }[] = [];
  let finished = false;
  const run = uploadChunk(
    Array.from({ length: batches }, (_, i) => i),
    plan,
    {
      now: () => now,
      sleep: wait,
      post: async (_body, key) => {
        posts.push({ at: now, key });
        await wait(SERVICE_MS);
        return '201';
      },
      answered: (latencyMs) => latencies.push(latencyMs),
    },
  ).finally(() => {
    finished = true;
  });
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve)); // every collector has reached its next wait
    timers.sort((a, b) => a.at - b.at);
    const timer = timers.shift();
    if (!timer) continue;
    now = Math.max(now, timer.at);
    timer.fire();
  }
  return { latencies, posts, chunkMs: await run };
}

t.test('flat out: each collector posts its next batch when the last is answered; latency from the send', async (t) => {
  const { latencies, posts, chunkMs } = await simulate(10, { keys: ['a', 'b'], batchSize: 50 });
  t.same(latencies, Array(10).fill(SERVICE_MS), 'every batch takes the hub its 50 ms, nothing more');
  t.same(
    posts.map((p) => p.at),
    [0, 0, 50, 50, 100, 100, 150, 150, 200, 200],
    'two in flight at a time',
  );
  t.same(new Set(posts.map((p) => p.key)), new Set(['a', 'b']));
  t.equal(chunkMs, 250);
});

t.test('paced faster than the hub answers: time waiting for a free collector counts', async (t) => {
  // 1,000 detections/s in batches of 10: one due every 10 ms; one collector answers one per 50 ms.
  const { latencies, posts } = await simulate(5, { keys: ['a'], batchSize: 10, ratePerSecond: 1000 });
  t.same(
    posts.map((p) => p.at),
    [0, 50, 100, 150, 200],
    'sent as soon as the collector is free',
  );
  // Batch i was due at 10 i ms and answered at 50 (i + 1) ms. Timed from its send, each would be 50 ms.
  t.same(latencies, [50, 90, 130, 170, 210]);
});

t.test('paced slower than the hub answers: batches are held until due', async (t) => {
  // 100 detections/s in batches of 10: one due every 100 ms.
  const { latencies, posts, chunkMs } = await simulate(4, { keys: ['a', 'b'], batchSize: 10, ratePerSecond: 100 });
  t.same(
    posts.map((p) => p.at),
    [0, 100, 200, 300],
    'each sent at its due time, not earlier',
  );
  t.same(latencies, Array(4).fill(SERVICE_MS));
  t.equal(chunkMs, 350);
});
