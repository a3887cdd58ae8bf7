import t from 'tap';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { batchResponseSchema } from '@alpr/shared/protocol/batch';
import { claimCollector, createPendingCollector } from '../../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../../scripts/demo/processes.ts';
import { openDatabase } from '../db/client.ts';
import { testDatabase } from '../db/test-database.ts';
import { createLog } from '../log.ts';
import { scanRecords } from './image-journal.ts';
import { JOURNAL_FOLDER } from './image-store.ts';
import { encodeBatch, jpegLike, sampleDetection } from './test-support.ts';

/**
 * The image journal's promise under a crash, with a real hub process and real HTTP: every
 * image the hub acknowledged (its detection answered `stored` or `duplicate`) is, after a
 * SIGKILL mid-upload and a restart, in the content-addressed tree with its exact bytes and
 * hash, and the journal the crash left behind has been replayed and emptied.
 */
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function journalRecords(imageDir: string): Promise<number> {
  const dir = join(imageDir, JOURNAL_FOLDER);
  let records = 0;
  for (const name of await readdir(dir).catch(() => [])) records += scanRecords(await readFile(join(dir, name))).records.length;
  return records;
}

t.test('SIGKILL mid-upload: every acknowledged image survives, byte for byte', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-journal-crash-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const imageDir = join(dataDir, 'images');
  const env: Record<string, string> = { HUB_DATA_DIR: dataDir, HUB_HOST: '127.0.0.1', HUB_PORT: '0', HUB_LOG_LEVEL: 'warn', DATABASE_URL: '' };
  let count: () => Promise<number>;
  if (process.env['DATABASE_URL']) {
    const db = await testDatabase(t);
    env['DATABASE_URL'] = db.url ?? '';
    count = async () => Number((await db.sql<{ n: string }>('SELECT count(*) AS n FROM detections'))[0]?.n);
  } else {
    t.comment('DATABASE_URL not set: the hub runs on PGlite');
    // PGlite: one process at a time, so the count is read with the hub stopped.
    count = async () => {
      const db = await openDatabase({ dataDir: join(dataDir, 'pglite'), log: createLog('silent') });
      try {
        return Number((await db.sql<{ n: string }>('SELECT count(*) AS n FROM detections'))[0]?.n);
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
        const res = await request(`${url()}/api/v1/detections/batch`, { method: 'POST', headers: { 'content-type': contentType, 'x-api-key': apiKey }, body });
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
  t.ok((await journalRecords(imageDir)) > 0, 'the crash left acknowledged images in the journal');

  hub = await startHubProcess({ env, timeoutMs: 120_000 });
  await hub.stop();
  hub = undefined;
  t.equal(await journalRecords(imageDir), 0, 'the restarted hub replayed the journal and emptied it');
  let intact = 0;
  for (const [hash, bytes] of acknowledged) {
    const path = join(imageDir, hash.slice(0, 2), hash.slice(2, 4), `${hash}.jpg`);
    const stored = await readFile(path).catch(() => undefined);
    if (stored && stored.equals(bytes) && sha256(stored) === hash) intact += 1;
    else t.fail(`acknowledged image ${hash} missing or damaged`);
  }
  t.equal(intact, acknowledged.size, 'every acknowledged image is in the tree with its bytes and hash');
  t.ok((await count()) >= acknowledgedDetections, 'every acknowledged detection is stored');
});
