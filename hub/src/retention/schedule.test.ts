import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cliWorld } from '../cli/cli-world.test-helper.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { openImageStore } from '../images/image-store.ts';
import { createLog } from '../platform/log.ts';
import { DEFAULT_HORIZONS } from '../platform/config/retention-horizons.ts';
import type { RetentionReport } from './run.ts';
import { startRetentionSchedule } from './schedule.ts';

t.test('retention configuration', async (t) => {
  const config = loadHubConfig({});
  t.equal(config.retentionSchedule, '17 3 * * *', 'daily at 03:17 UTC');
  t.same(config.retention, { imagesDays: 365, detectionsDays: 2557, nonHitsDays: null, alertsDays: 2557, auditDays: 2557, holdsDays: 2557 });
  t.equal(config.retentionPreset, 'default');
  t.equal(loadHubConfig({ HUB_RETENTION_PRESET: '21d' }).retention.nonHitsDays, 21, 'a preset sets the non-hit tier');
  t.equal(loadHubConfig({ HUB_RETENTION_PRESET: '24h' }).retention.nonHitsDays, 1);
  t.equal(loadHubConfig({ HUB_RETENTION_PRESET: '90d', HUB_RETENTION_NON_HITS_DAYS: '45' }).retention.nonHitsDays, 45, 'an explicit period wins');
  t.equal(loadHubConfig({ HUB_RETENTION_PRESET: '90d' }).retention.detectionsDays, 2557, 'hits keep their own period');
  t.throws(() => loadHubConfig({ HUB_RETENTION_PRESET: '3m' }), /HUB_RETENTION_PRESET/);
  t.throws(() => loadHubConfig({ HUB_RETENTION_NON_HITS_DAYS: '0' }), /HUB_RETENTION_NON_HITS_DAYS/);
  t.equal(loadHubConfig({ HUB_RETENTION_SCHEDULE: 'off' }).retentionSchedule, null);
  t.equal(loadHubConfig({ HUB_RETENTION_IMAGES_DAYS: '30' }).retention.imagesDays, 30);
  t.throws(() => loadHubConfig({ HUB_RETENTION_SCHEDULE: 'every day' }), /HUB_RETENTION_SCHEDULE/);
  t.throws(() => loadHubConfig({ HUB_RETENTION_SCHEDULE: '61 3 * * *' }), /HUB_RETENTION_SCHEDULE: .*minute/i);
  t.throws(() => loadHubConfig({ HUB_RETENTION_DETECTIONS_DAYS: '30' }), /HUB_RETENTION_DETECTIONS_DAYS/, 'the database keeps detections a year at least');
  t.throws(() => loadHubConfig({ HUB_RETENTION_AUDIT_DAYS: 'seven years' }), /HUB_RETENTION_AUDIT_DAYS/);
});

t.test('the schedule runs retention and reports', async (t) => {
  const db = await testDatabase(t);
  const dir = await mkdtemp(join(tmpdir(), 'retention-schedule-'));
  const images = openImageStore(dir, { db });
  t.teardown(async () => {
    await images.close();
    await rm(dir, { recursive: true, force: true });
  });
  const reports: RetentionReport[] = [];
  let done!: () => void;
  const first = new Promise<void>((resolve) => (done = resolve));
  // Every second (node-cron's six-field form), so the test does not wait for 03:17.
  const schedule = startRetentionSchedule(
    { db, images, clock: { now: () => new Date() }, log: createLog('silent') },
    {
      schedule: '* * * * * *',
      horizons: DEFAULT_HORIZONS,
      onRun: (report) => {
        reports.push(report);
        done();
      },
    },
  );
  t.ok(schedule.nextRun(), 'knows its next run');
  await first;
  await schedule.stop();
  const [report] = reports;
  t.equal(report?.dryRun, false);
  t.notOk(report?.skipped);
  t.match(await db.sql(`SELECT action FROM audit_log WHERE action = 'retention.run'`), [{ action: 'retention.run' }], 'the run left its audit row');
});

t.test('npm run hub -- retention', async (t) => {
  // In this process (cli-world.test-helper.ts); main.test.ts runs the entry point itself.
  const world = await cliWorld(t, 'retention-cli', { env: { HUB_LOG_LEVEL: 'warn' } });
  const cli = (...args: string[]): ReturnType<typeof world.cli> => world.cli(['retention', ...args]);
  const dry = await cli('--dry-run', '--json');
  t.equal(dry.code, 0, dry.stderr);
  const report = JSON.parse(dry.stdout) as Record<string, unknown>;
  t.equal(report['mode'], 'dry run: nothing changed');
  t.equal(report['detections would remove'], 0);
  const real = await cli();
  t.equal(real.code, 0, real.stderr);
  t.match(real.stdout, /^mode: +run$/m);
  t.match(real.stdout, /^detections removed: +0$/m);
  t.equal((await cli('--now')).code, 2, 'an unknown option is a usage error');
});
