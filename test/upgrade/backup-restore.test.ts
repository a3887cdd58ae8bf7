import t from 'tap';
import { appendFile, mkdtemp, readdir, readFile, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { backup } from '../../hub/src/backup/backup.ts';
import { restore } from '../../hub/src/backup/restore.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { verifyChain } from '../../hub/src/db/chain.ts';
import { claimCollector, createPendingCollector } from '../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { ackedBatches, emptyDatabase, hubCli, keepUploading, waitForAcks, newCollector, sentIds, sha256, upload, type Collector } from './ingest-client.ts';

/**
 * Backup and restore (docs/operations.md): a hub on PostgreSQL ingests batches with images
 * from two collectors while `npm run hub -- backup` runs; the backup is restored into a new
 * database and a new data folder; the restored hub's chains verify with `chain verify`,
 * every image of every restored detection reads back byte for byte, and the collectors,
 * sending again everything they ever sent and then new batches, lose nothing and double
 * nothing: what the backup holds comes back `duplicate`, what came after it `stored`.
 */
const adminUrl = process.env['DATABASE_URL'];
if (!adminUrl) {
  if (process.env['CI'] === 'true') throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  t.comment('DATABASE_URL not set: backups need PostgreSQL, nothing to test');
} else {
  t.test('backup during ingest, restore on an empty server, collectors continue', async (t) => {
    const source = await testDatabase(t);
    const sourceDir = await mkdtemp(join(tmpdir(), 'alpr-backup-src-'));
    const targetDir = await mkdtemp(join(tmpdir(), 'alpr-backup-dst-'));
    const backupDir = join(await mkdtemp(join(tmpdir(), 'alpr-backup-')), 'set');
    t.teardown(() => Promise.all([sourceDir, targetDir, join(backupDir, '..')].map((d) => rm(d, { recursive: true, force: true }))));
    const env = { DATABASE_URL: source.url ?? '', HUB_DATA_DIR: sourceDir, HUB_HOST: '127.0.0.1', HUB_PORT: '0', HUB_LOG_LEVEL: 'warn' };
    const codes = [await createPendingCollector(env, 'North gate'), await createPendingCollector(env, 'South gate')];
    let hub: RunningProcess | undefined = await startHubProcess({ env, timeoutMs: 120_000 });
    t.teardown(() => hub?.stop());
    let url = `http://127.0.0.1:${hub.port}`;
    const collectors: Collector[] = [];
    for (const [i, code] of codes.entries()) collectors.push(newCollector((await claimCollector(url, code, `backup-test-${i}`)).api_key));

    let stopping = false;
    const acknowledged = (): number => collectors.reduce((n, c) => n + ackedBatches(c), 0);
    const hubOutput = (): string => `hub output:\n${hub?.output() ?? '(stopped)'}`;
    const ingest = Promise.all(
      collectors.map((c) =>
        keepUploading(
          () => url,
          c,
          () => stopping,
        ),
      ),
    );
    await waitForAcks(collectors, 10, 120_000, hubOutput);
    const before = acknowledged();
    const made = await hubCli(env, ['backup', backupDir, '--json']);
    t.equal(made.code, 0, `backup exits 0 while ingest runs\n${made.stderr}`);
    const during = acknowledged() - before;
    // Ingest goes on after the backup point, so the restore must lack something the collectors re-send.
    await waitForAcks(collectors, before + during + 6, 120_000, hubOutput);
    stopping = true;
    await ingest;
    t.comment(`${before} batches before the backup, ${during} during it, ${acknowledged() - before - during} after`);
    const manifest = JSON.parse(await readFile(join(backupDir, 'manifest.json'), 'utf8')) as { counts: { detections: number }; files: { path: string }[] };
    t.ok(manifest.counts.detections >= before * 4, `the backup holds ${manifest.counts.detections} detections`);
    t.ok(
      manifest.files.some((f) => f.path.startsWith('images/segments/')),
      'the manifest lists image segments',
    );
    const dataFiles = (await readdir(sourceDir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => `data/${e.name}`);
    t.ok(
      dataFiles.every((p) => manifest.files.some((f) => f.path === p)),
      `the manifest lists the data folder's files (${dataFiles.join(', ') || 'none yet'})`,
    );
    await hub.stop();
    hub = undefined;

    // Refusals first (the verbs in this process: each CLI start costs seconds): PGlite, a
    // damaged backup, then (after the restore) a non-empty target.
    const quiet = createLog('silent');
    await t.rejects(
      backup(
        { config: { databaseUrl: undefined, dataDir: targetDir, imageDir: join(targetDir, 'images') }, clock: systemClock, log: quiet },
        join(backupDir, '..', 'other'),
      ),
      /backups need the PostgreSQL mode/,
      'backup on PGlite is refused, saying why',
    );
    const target = await emptyDatabase(t, adminUrl);
    const targetEnv = { ...env, DATABASE_URL: target, HUB_DATA_DIR: targetDir };
    const targetConfig = { databaseUrl: target, dataDir: targetDir, imageDir: join(targetDir, 'images') };
    const segment = manifest.files.find((f) => f.path.startsWith('images/segments/'))?.path ?? '';
    const segmentPath = join(backupDir, segment);
    const size = (await readFile(segmentPath)).length;
    await appendFile(segmentPath, Buffer.from([0]));
    await t.rejects(
      restore({ config: targetConfig, log: quiet }, backupDir),
      new RegExp(`${segment}: ${size + 1} bytes, the manifest says ${size}`),
      'a damaged backup is refused, naming the damaged file',
    );
    await truncate(segmentPath, size);

    const restored = await hubCli(targetEnv, ['restore', backupDir, '--json']);
    t.equal(restored.code, 0, `restore exits 0\n${restored.stderr}`);
    const report = JSON.parse(restored.stdout) as { detections: number };
    t.equal(report.detections, manifest.counts.detections, 'every detection of the backup is restored');
    await t.rejects(
      restore({ config: targetConfig, log: quiet }, backupDir),
      /is not empty/,
      'restoring over a restored hub is refused: the target is not empty',
    );
    await t.rejects(
      restore({ config: { ...targetConfig, dataDir: join(targetDir, 'elsewhere'), imageDir: join(targetDir, 'elsewhere', 'images') }, log: quiet }, backupDir),
      /the database at DATABASE_URL is not empty/,
      'a non-empty database is refused even with an empty image folder',
    );

    // Every image of every restored detection, byte for byte.
    const db = await openDatabase({ url: target, log: createLog('silent'), maxConnections: 2 });
    t.teardown(() => db.close());
    const images = openImageStore(join(targetDir, 'images'), { db });
    const sent = new Map<string, Buffer>(collectors.flatMap((c) => [...c.images]));
    const rows = await db.sql<{ full_image_hash: string | null; crop_image_hash: string | null }>('SELECT full_image_hash, crop_image_hash FROM detections');
    let intact = 0;
    let wrong = 0;
    for (const row of rows) {
      for (const hash of [row.full_image_hash, row.crop_image_hash]) {
        const stored = hash ? await images.get(hash) : undefined;
        if (hash && stored && Buffer.from(stored).equals(sent.get(hash) ?? Buffer.alloc(0)) && sha256(stored) === hash) intact += 1;
        else wrong += 1;
      }
    }
    await images.close();
    t.equal(wrong, 0, 'no restored detection lacks an image or reads wrong bytes');
    t.equal(intact, rows.length * 2, `all ${intact} images of the ${rows.length} restored detections read back byte for byte`);

    // The collectors come back: everything sent again, then new batches.
    hub = await startHubProcess({ env: targetEnv, timeoutMs: 120_000 });
    url = `http://127.0.0.1:${hub.port}`;
    const answers = new Map<string, number>();
    for (const c of collectors) {
      for (const batch of [...c.sent]) for (const status of (await upload(url, c, batch)).values()) answers.set(status, (answers.get(status) ?? 0) + 1);
    }
    t.equal(answers.get('duplicate'), manifest.counts.detections, 'what the backup holds is answered duplicate');
    t.ok((answers.get('stored') ?? 0) > 0, `what came after the backup point is stored again (${answers.get('stored')})`);
    stopping = false;
    let more = 0;
    await Promise.all(
      collectors.map((c) =>
        keepUploading(
          () => url,
          c,
          () => (more += 1) > 8,
        ),
      ),
    );
    await hub.stop();
    hub = undefined;

    const all = collectors.flatMap(sentIds);
    const [counts] = await db.sql<{ n: string; distinct_ids: string }>('SELECT count(*) AS n, count(DISTINCT detection_id) AS distinct_ids FROM detections');
    t.equal(Number(counts?.n), all.length, `every detection ever sent is held once (${all.length})`);
    t.equal(Number(counts?.distinct_ids), all.length, 'none twice');
    const ids = await db.sql<{ id: string }>('SELECT id::text AS id FROM collectors ORDER BY id');
    t.equal(ids.length, 2, 'both collectors are restored');
    for (const { id } of ids) t.match(await verifyChain(db, id), { ok: true }, `collector ${id}: chain verify passes`);
  });
}
