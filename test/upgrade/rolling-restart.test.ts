import t from 'tap';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain } from '../../hub/src/db/chain.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { claimCollector, createPendingCollector } from '../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { freePort } from '../e2e/hub-under-test.ts';
import { ackedBatches, newCollector, sentIds, sha256, upload, freshBatch, waitForAcks, type Collector } from './ingest-client.ts';

/**
 * Two hub processes behind one address (docs/operations.md "Upgrade"): a TCP balancer on
 * loopback hands each connection to the next hub that accepts it, as a load balancer with
 * connect-failure retry does. Each hub is stopped and started again in turn while a
 * collector uploads through the balancer. No batch needs more than one retry (the one a
 * connection cut by the stopping hub costs), and every detection is held exactly once.
 */
function balancer(backends: readonly number[]): Promise<{ port: number; server: Server }> {
  let next = 0;
  const server = createServer((client: Socket) => {
    client.pause();
    const attempt = (left: number): void => {
      if (left === 0) {
        client.destroy();
        return;
      }
      const port = backends[next++ % backends.length] ?? 0;
      const upstream = createConnection({ host: '127.0.0.1', port });
      upstream.once('error', () => attempt(left - 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
    };
    attempt(backends.length);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, server })));
}

const adminUrl = process.env['DATABASE_URL'];
if (!adminUrl) {
  if (process.env['CI'] === 'true') throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  t.comment('DATABASE_URL not set: two hubs need PostgreSQL');
} else {
  t.test('two hubs behind one address restart one at a time while a collector uploads', async (t) => {
    const db = await testDatabase(t);
    const secret = randomBytes(24).toString('hex');
    const dirs = [await mkdtemp(join(tmpdir(), 'alpr-roll-a-')), await mkdtemp(join(tmpdir(), 'alpr-roll-b-'))];
    t.teardown(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
    const ports = [await freePort(), await freePort()];
    const envs = dirs.map((dir, i) => ({
      DATABASE_URL: db.url ?? '',
      HUB_DATA_DIR: dir,
      HUB_HOST: '127.0.0.1',
      HUB_PORT: String(ports[i]),
      HUB_LOG_LEVEL: 'warn',
      HUB_SESSION_SECRET: secret,
    }));
    const code = await createPendingCollector(envs[0] ?? {}, 'Rolling gate');
    const hubs: (RunningProcess | undefined)[] = await Promise.all(envs.map((env) => startHubProcess({ env, timeoutMs: 120_000 })));
    t.teardown(() => Promise.all(hubs.map((h) => h?.stop())));
    const front = await balancer(ports as number[]);
    t.teardown(() => new Promise((resolve) => front.server.close(resolve)));
    const url = `http://127.0.0.1:${front.port}`;
    const collector: Collector = newCollector((await claimCollector(url, code, 'rolling-test')).api_key);

    let stopping = false;
    let abandoned = false;
    t.teardown(() => {
      abandoned = true;
    });
    let worstRetries = 0;
    let failures = 0;
    const reasons = new Map<string, number>();
    const uploading = (async () => {
      while (!stopping) {
        const batch = freshBatch(collector);
        for (let tries = 0; ; tries += 1) {
          try {
            await upload(url, collector, batch);
            worstRetries = Math.max(worstRetries, tries);
            break;
          } catch (err) {
            // A test that failed (or ends) stops its uploader: an endless retry would hold the file open.
            if (abandoned) return;
            failures += 1;
            const reason = String((err as Error).message).slice(0, 120);
            collector.lastError = reason;
            reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
    })();
    const acked = (): number => ackedBatches(collector);
    const hubOutput = (): string => hubs.map((h, i) => `hub ${i} output:\n${h?.output().slice(-2000) ?? '(stopped)'}`).join('\n');
    // Each step says when it ended: a run cut short by the file's timeout (once in CI) then
    // shows which step held it.
    const began = Date.now();
    const step = (what: string): void => {
      t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what} (${acked()} batches answered, ${failures} failed attempts)`);
    };
    for (const i of [0, 1]) {
      const before = acked();
      await waitForAcks(collector, before + 5, 120_000, hubOutput);
      step(`5 more batches before hub ${i} stops`);
      await hubs[i]?.stop();
      hubs[i] = undefined;
      step(`hub ${i} stopped`);
      const during = acked();
      hubs[i] = await startHubProcess({ env: envs[i] ?? {}, timeoutMs: 120_000 });
      step(`hub ${i} started again`);
      t.ok(acked() > during, `uploads went on through the other hub while hub ${i} restarted (${acked() - during} batches)`);
    }
    const last = acked();
    await waitForAcks(collector, last + 5, 120_000, hubOutput);
    stopping = true;
    // The batch in flight is answered in the end; bounded, so a hub that never answers it fails
    // the test with the hubs' output instead of holding the file until its timeout.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([
      uploading,
      new Promise((_, reject) => {
        bound = setTimeout(() => reject(new Error(`the last batch was not answered in 150 s: ${collector.lastError ?? ''}\n${hubOutput()}`)), 150_000);
      }),
    ]).finally(() => clearTimeout(bound));
    step('uploads stopped');
    t.comment(`${acked()} batches, ${failures} failed attempts, at most ${worstRetries} retries for one batch`);
    for (const [reason, n] of reasons) t.comment(`${n} x ${reason}`);
    // A stopping hub answers what it holds and sends the rest elsewhere (hub/src/platform/http/drain.ts):
    // never an internal error from a database closed under a request.
    t.same(
      [...reasons.keys()].filter((reason) => reason.startsWith('status 500')),
      [],
      'no request failed with an internal error while a hub stopped',
    );
    t.ok(worstRetries <= 1, 'no batch needed more than one retry (the connection a stopping hub cut)');

    await Promise.all(hubs.map((h) => h?.stop()));
    hubs.fill(undefined);
    const all = sentIds(collector);
    const [counts] = await db.sql<{ n: string; distinct_ids: string }>('SELECT count(*) AS n, count(DISTINCT detection_id) AS distinct_ids FROM detections');
    t.equal(Number(counts?.n), all.length, `every detection sent is held (${all.length})`);
    t.equal(Number(counts?.distinct_ids), all.length, 'none twice');
    for (const { id } of await db.sql<{ id: string }>('SELECT id::text AS id FROM collectors'))
      t.match(await verifyChain(db, id), { ok: true }, `collector ${id}: one chain across both hubs verifies`);
    // Each hub keeps the images it received in its own folder: each image is in one of them.
    const stores = dirs.map((dir) => openImageStore(join(dir, 'images'), { db }));
    let found = 0;
    for (const [hash, bytes] of collector.images) {
      for (const store of stores) {
        const stored = await store.get(hash);
        if (stored && sha256(stored) === hash && Buffer.from(stored).equals(bytes)) {
          found += 1;
          break;
        }
      }
    }
    await Promise.all(stores.map((s) => s.close()));
    t.equal(found, collector.images.size, `all ${found} images read back from the hub that took them`);
  });
}
