import t from 'tap';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { batchResponseSchema } from '@alpr/shared/protocol/batch';
import { claimCollector, createPendingCollector } from '../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import type { DbSession } from '../../hub/src/db/session.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { encodeBatch, jpegLike, sampleDetection } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';

/**
 * The image store's promise under a crash, with a real hub process and real HTTP: every
 * image the hub acknowledged (its detection answered `stored` or `duplicate`) is, after a
 * SIGKILL mid-upload and a restart, found through the location index and read from its
 * segment with its exact bytes and hash.
 */
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

t.test('SIGKILL mid-upload: every acknowledged image survives, byte for byte', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-journal-crash-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const imageDir = join(dataDir, 'images');
  const env: Record<string, string> = { HUB_DATA_DIR: dataDir, HUB_HOST: '127.0.0.1', HUB_PORT: '0', HUB_LOG_LEVEL: 'warn', DATABASE_URL: '' };
  /** Runs `fn` on the hub's database (PGlite: one process at a time, so with the hub stopped). */
  let withDb: <T>(fn: (db: DbSession) => Promise<T>) => Promise<T>;
  if (process.env['DATABASE_URL']) {
    const db = await testDatabase(t);
    env['DATABASE_URL'] = db.url ?? '';
    withDb = (fn) => fn(db);
  } else {
    t.comment('DATABASE_URL not set: the hub runs on PGlite');
    withDb = async (fn) => {
      const db = await openDatabase({ dataDir: join(dataDir, 'pglite'), log: createLog('silent') });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    };
  }
  const claimCode = await createPendingCollector(env, 'Crash site');
  let hub: RunningProcess | undefined = await startHubProcess({ env, timeoutMs: 120_000 });
  t.teardown(() => hub?.stop());
  const url = () => `http://127.0.0.1:${hub?.port}`;
  const { api_key: apiKey } = await claimCollector(url(), claimCode, 'crash-test');

  // Image bytes of every acknowledged detection, by hash.
  const acknowledged = new Map<string, Buffer>();
  let acknowledgedDetections = 0;
  let acknowledgedBatches = 0;
  let killed = false;
  const uploader = async (): Promise<void> => {
    while (!killed) {
      const entries = Array.from({ length: 10 }, () => ({ detection: sampleDetection(), plateCrop: jpegLike(20_000), fullScene: jpegLike(65_000) }));
      const { body, contentType } = encodeBatch(entries);
      let answer;
      try {
        const res = await request(`${url()}${BATCH_PATH}`, { method: 'POST', headers: { 'content-type': contentType, 'x-api-key': apiKey }, body });
        if (res.statusCode !== 201 && res.statusCode !== 202) throw new Error(`status ${res.statusCode}: ${await res.body.text()}`);
        answer = batchResponseSchema.parse(await res.body.json());
      } catch (error) {
        if (killed) return; // cut off by the kill: never acknowledged
        throw error;
      }
      for (const result of answer.results) {
        const entry = entries[result.index];
        if (!entry || (result.status !== 'stored' && result.status !== 'duplicate')) continue;
        acknowledgedDetections += 1;
        for (const image of [entry.plateCrop, entry.fullScene]) acknowledged.set(sha256(image), image);
      }
      acknowledgedBatches += 1;
    }
  };
  // Three uploads at once (group commit shares flushes between them); kill once several
  // batches are acknowledged, with more in flight.
  const uploads = Promise.all([uploader(), uploader(), uploader()]);
  while (acknowledgedBatches < 8) await new Promise((resolve) => setTimeout(resolve, 20));
  killed = true;
  await hub.kill();
  hub = undefined;
  await uploads;
  t.ok(acknowledged.size >= 160, `${acknowledged.size} images acknowledged before the kill`);

  hub = await startHubProcess({ env, timeoutMs: 120_000 });
  await hub.stop();
  hub = undefined;
  await withDb(async (db) => {
    const images = openImageStore(imageDir, { db });
    try {
      let intact = 0;
      for (const [hash, bytes] of acknowledged) {
        const stored = await images.get(hash);
        if (stored && Buffer.from(stored).equals(bytes) && sha256(stored) === hash) intact += 1;
        else t.fail(`acknowledged image ${hash} missing or damaged`);
      }
      t.equal(intact, acknowledged.size, 'every acknowledged image is read through the index with its bytes and hash');
    } finally {
      await images.close();
    }
    const [row] = await db.sql<{ n: string }>('SELECT count(*) AS n FROM detections');
    t.ok(Number(row?.n) >= acknowledgedDetections, 'every acknowledged detection is stored');
  });
});
