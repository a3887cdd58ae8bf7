import t from 'tap';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase } from '../db/database.test-helper.ts';
import type { DbSession } from '../db/session.ts';
import { openImageStore, sha256Hex, type ImageStore } from '../images/image-store.ts';
import { parseBatchUpload } from './batch-upload.ts';
import { createBodyBuffers } from './body-buffers.ts';
import { createQueueDepthRefresher } from './queue-depth.ts';
import { storeBatch } from './store-batch.ts';
import { encodeBatch, jpegLike, sampleDetection, startTestHub, uploadBatch, type BatchEntry } from './uploads.test-helper.ts';

t.test('the pool hands out buffers of its size, takes them back up to maxIdle, refuses what it did not make', async (t) => {
  const pool = createBodyBuffers({ bufferBytes: 1024, maxIdle: 2 });
  t.equal(pool.take(1025), undefined, 'a body larger than a buffer: allocate it apart');
  const a = pool.take(1024);
  const b = pool.take(10);
  const c = pool.take(1);
  if (!a || !b || !c) throw new Error('expected buffers');
  t.equal(a.byteLength, 1024, 'always the full buffer size');
  t.not(a, b);
  t.same(pool.stats(), { idle: 0, created: 3 });
  pool.give(a);
  pool.give(a);
  t.same(pool.stats(), { idle: 1, created: 3 }, 'a buffer given twice is kept once');
  pool.give(new ArrayBuffer(512));
  t.same(pool.stats().idle, 1, 'a buffer of another size is not taken');
  pool.give(b);
  pool.give(c);
  t.same(pool.stats(), { idle: 2, created: 3 }, 'no more than maxIdle kept');
  t.equal(pool.take(100), b, 'the last given is reused first');
  t.equal(pool.take(100), a);
  t.same(pool.stats(), { idle: 0, created: 3 }, 'reused, not made');
});

const entriesOf = (n: number, seed: number): BatchEntry[] =>
  Array.from({ length: n }, (_, i) => ({
    detection: sampleDetection({ plate: { text: `RB${seed}X${i}`, confidence: 0.9 } }),
    fullScene: jpegLike(30_000 + seed * 7 + i),
    plateCrop: jpegLike(8_000 + seed * 3 + i),
  }));

/** Every image the image store was handed, with the buffer it was a view into. */
function recordingStore(inner: ImageStore, seen: ArrayBufferLike[]): ImageStore {
  return {
    ...inner,
    putBatch: (images) => {
      for (const image of images) seen.push(image.bytes.buffer);
      return inner.putBatch(images);
    },
  };
}

t.test('uploads one after another and at once through reused body buffers: every image intact', async (t) => {
  const db = await testDatabase(t);
  const seen: ArrayBufferLike[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'alpr-body-buffers-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const live = await startTestHub({ db, images: recordingStore(openImageStore(dir, { db }), seen) });
  t.teardown(() => live.close());
  const post = (entries: readonly BatchEntry[]) => uploadBatch(live, live.apiKey, entries);
  const batches: BatchEntry[][] = [];
  for (let k = 0; k < 4; k++) {
    const entries = entriesOf(5, k);
    batches.push(entries);
    t.equal((await post(entries)).accepted, 5);
  }
  const together = [4, 5, 6, 7].map((k) => entriesOf(5, k));
  batches.push(...together);
  for (const answer of await Promise.all(together.map(post))) t.equal(answer.accepted, 5);

  const buffers = new Set(seen);
  t.ok(buffers.size < 8, `8 uploads read into ${buffers.size} buffers: reused`);
  // Read back after all of them: a body buffer handed on too early would have been
  // overwritten by a later upload before its images were copied out.
  let intact = 0;
  for (const entries of batches) {
    for (const entry of entries) {
      for (const bytes of [entry.fullScene, entry.plateCrop]) {
        if (!bytes) continue;
        const stored = await live.deps.images.get(sha256Hex(bytes));
        if (stored && Buffer.from(stored).equals(bytes)) intact += 1;
      }
    }
  }
  t.equal(intact, 8 * 5 * 2, 'every image reads back byte for byte');
});

t.test('a failed transaction answers only once its image writes have settled (they read the body)', async (t) => {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db });
  t.teardown(() => hub.close());
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let writesSettled = false;
  const images: ImageStore = {
    ...hub.deps.images,
    putBatch: async (entries) => {
      await gate;
      try {
        return await hub.deps.images.putBatch(entries);
      } finally {
        writesSettled = true;
      }
    },
  };
  let transactionFailed = false;
  const watched: DbSession = {
    ...hub.deps.db,
    pipelinedTransaction: (fn) =>
      hub.deps.db.pipelinedTransaction(fn).catch((err: unknown) => {
        transactionFailed = true;
        throw err;
      }),
  };
  const { body, contentType } = encodeBatch(entriesOf(3, 9));
  const upload = parseBatchUpload(body, contentType, 10 * 1024 * 1024);
  const deps = { ...hub.deps, db: watched, images, queueDepth: createQueueDepthRefresher(hub.deps), maxCaptureAheadMs: 60_000 };
  // A collector that does not exist: the transaction fails at its first statements.
  let settled = false;
  const stored = storeBatch(deps, { collectorId: randomUUID(), ...upload }).finally(() => (settled = true));
  stored.catch(() => undefined);
  while (!transactionFailed) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(settled, false, 'the transaction failed, the image writes are still running: no answer yet');
  open();
  await t.rejects(stored, 'the batch fails');
  t.equal(writesSettled, true, 'by then the image writes had settled');
});
