import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { openDatabase } from '../../hub/src/db/client.ts';
import { loadMigrations } from '../../hub/src/db/migrate.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { claimCollector } from '../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { freePort } from '../e2e/hub-under-test.ts';
import { ackedBatches, emptyDatabase, hubCli, keepUploading, waitForAcks, newCollector, sentIds, sha256, upload, type Collector } from './ingest-client.ts';
import { readPreviousRelease, releaseWorktree } from './worktree.ts';

/**
 * Upgrade without loss (docs/operations.md "Upgrade"): the hub of the previous release
 * (the newest one CHANGELOG.md names, its commit checked out into a temporary worktree)
 * ingests batches with images on a fresh PostgreSQL database; it is stopped and this checkout's hub started on
 * the same database and data folder at the same address while a collector keeps uploading
 * and retrying like an appliance. Then: this code's migrations are all applied, every chain
 * verifies, every image reads back byte for byte, and every detection sent is held once.
 */
const previous = await readPreviousRelease();
const PREVIOUS_RELEASE = previous.tag;

async function migrationLevel(url: string): Promise<string | undefined> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql<{ v: string }[]>`SELECT max(version) AS v FROM schema_migrations`;
    return row?.v;
  } finally {
    await sql.end();
  }
}
const adminUrl = process.env['DATABASE_URL'];
if (!adminUrl) {
  if (process.env['CI'] === 'true') throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  t.comment('DATABASE_URL not set: the upgrade test runs on PostgreSQL only');
} else {
  t.test(`upgrade from ${PREVIOUS_RELEASE} while a collector uploads`, async (t) => {
    const old = await releaseWorktree(t, previous);
    const oldProcesses = (await import(pathToFileURL(join(old, 'scripts/demo/processes.ts')).href)) as { startHubProcess: typeof startHubProcess };
    const dataDir = await mkdtemp(join(tmpdir(), 'alpr-upgrade-'));
    t.teardown(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env = { DATABASE_URL: await emptyDatabase(t, adminUrl), HUB_DATA_DIR: dataDir, HUB_HOST: '127.0.0.1', HUB_PORT: String(port), HUB_LOG_LEVEL: 'warn' };
    const url = `http://127.0.0.1:${port}`;

    // The old release creates the schema, the collector and the first data.
    const created = await hubCli(env, ['collector', 'create', '--site-name', 'Upgrade gate'], old);
    const code = /ALPR-[A-Z0-9]{4}-[A-Z0-9]{4}/.exec(created.stdout)?.[0];
    if (!code) throw new Error(`the old CLI printed no claim code:\n${created.stdout}${created.stderr}`);
    let hub: RunningProcess | undefined = await oldProcesses.startHubProcess({ env, timeoutMs: 120_000 });
    t.teardown(() => hub?.stop());
    const collector: Collector = newCollector((await claimCollector(url, code, 'upgrade-test')).api_key);
    let stopping = false;
    const acked = (): number => ackedBatches(collector);
    const hubOutput = (): string => `hub output:\n${hub?.output() ?? '(stopped)'}`;
    const uploading = keepUploading(
      () => url,
      collector,
      () => stopping,
      50,
    );
    await waitForAcks(collector, 8, 120_000, hubOutput);

    // The upgrade: stop the old hub mid-stream, start this one on the same folder and address.
    await hub.stop();
    hub = undefined;
    const atRestart = acked();
    const oldLevel = await migrationLevel(env.DATABASE_URL);
    hub = await startHubProcess({ env, timeoutMs: 120_000 });
    await waitForAcks(collector, atRestart + 8, 120_000, hubOutput);
    stopping = true;
    const { retries } = await uploading;
    t.comment(`${atRestart} batches to ${PREVIOUS_RELEASE}, ${acked() - atRestart} to this code, ${retries} retries across the restart`);
    t.ok(
      collector.sent.every((b) => b.answers.size === b.entries.length && [...b.answers.values()].every((s) => s === 'stored' || s === 'duplicate')),
      'every batch was answered in the end, each detection stored (or duplicate for a retried batch)',
    );

    // Nothing doubled: sending everything again finds every detection already there.
    const again = new Map<string, number>();
    for (const batch of [...collector.sent])
      for (const status of (await upload(url, collector, batch)).values()) again.set(status, (again.get(status) ?? 0) + 1);
    t.same([...again.keys()], ['duplicate'], 'every detection sent again is a duplicate');
    await hub.stop();
    hub = undefined;

    const db = await openDatabase({ url: env.DATABASE_URL, log: createLog('silent'), maxConnections: 2 });
    t.teardown(() => db.close());
    for (const { id } of await db.sql<{ id: string }>('SELECT id::text AS id FROM collectors')) {
      const verified = await hubCli(env, ['chain', 'verify', id, '--json']);
      t.match(verified.stdout, /"chain":"intact"/, `chain verify ${id} with this code: intact\n${verified.stderr}`);
    }
    const latest = (await loadMigrations()).at(-1)?.version;
    const [level] = await db.sql<{ v: string }>('SELECT max(version) AS v FROM schema_migrations');
    t.equal(level?.v, latest, `this code's migrations are applied (${PREVIOUS_RELEASE} left ${oldLevel}, now ${latest})`);
    const all = sentIds(collector);
    const [counts] = await db.sql<{ n: string; distinct_ids: string }>('SELECT count(*) AS n, count(DISTINCT detection_id) AS distinct_ids FROM detections');
    t.equal(Number(counts?.n), all.length, `every detection sent is held (${all.length})`);
    t.equal(Number(counts?.distinct_ids), all.length, 'none twice');
    const images = openImageStore(join(dataDir, 'images'), { db });
    const rows = await db.sql<{ full_image_hash: string | null; crop_image_hash: string | null }>('SELECT full_image_hash, crop_image_hash FROM detections');
    let intact = 0;
    for (const row of rows) {
      for (const hash of [row.full_image_hash, row.crop_image_hash]) {
        const stored = hash ? await images.get(hash) : undefined;
        if (hash && stored && sha256(stored) === hash && Buffer.from(stored).equals(collector.images.get(hash) ?? Buffer.alloc(0))) intact += 1;
      }
    }
    await images.close();
    t.equal(intact, rows.length * 2, `all ${intact} images, written by both releases, read back byte for byte`);
  });
}
