/**
 * `npm run hub -- retention [--dry-run [--preset <name>]] [--json]`: one retention run now,
 * with the hub's configured horizons (docs/retention.md). `--dry-run` reports what each tier
 * would remove and changes nothing; `--preset` previews a preset's non-hit tier before the
 * admin sets HUB_RETENTION_PRESET (only with --dry-run: a real run follows the configuration). With PGlite, stop the hub first (one process per folder); with PostgreSQL it may
 * run beside the hub (the run takes an advisory lock; a concurrent one reports `skipped`).
 */
import { parseArgs } from 'node:util';
import { systemClock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { openImageStore } from '../images/image-store.ts';
import { describeTiers, RETENTION_PRESETS, withPreset, type RetentionPreset } from '../platform/config/retention-presets.ts';
import { runRetention, type RetentionReport } from '../retention/run.ts';
import { cliLog, type CliIo } from './cli-io.ts';
import { createOutput } from './output.ts';

const USAGE = `usage: npm run hub -- retention [--dry-run [--preset ${RETENTION_PRESETS.join('|')}]] [--json]`;

export async function runRetentionCommand(args: readonly string[], io: CliIo): Promise<number> {
  let options: { 'dry-run'?: boolean; json?: boolean; preset?: string };
  try {
    const parsed = parseArgs({
      args: [...args],
      options: { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' }, preset: { type: 'string' } },
      strict: true,
    });
    options = parsed.values;
  } catch (err) {
    io.stderr(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const preset = options.preset;
  if (preset !== undefined && (!isPreset(preset) || options['dry-run'] !== true)) {
    io.stderr(`--preset takes ${RETENTION_PRESETS.join(', ')} and needs --dry-run\n${USAGE}\n`);
    return 2;
  }
  const config = loadHubConfig(io.env);
  const horizons = preset === undefined ? config.retention : withPreset(config.retention, preset);
  const log = cliLog(io, config.logLevel);
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 2 });
  const images = openImageStore(config.imageDir, { db, onError: (err) => log.error({ err }, 'image store') });
  try {
    await images.ready();
    const report = await runRetention({ db, images, clock: systemClock }, horizons, { dryRun: options['dry-run'] === true });
    const out = createOutput(options.json === true, (line) => io.stdout(`${line}\n`));
    out.record({ preset: preset ?? config.retentionPreset, ...summary(report), tiers: describeTiers(horizons).map((x) => `${x.tier}: ${x.kept}`) });
    return report.skipped ? 1 : 0;
  } finally {
    await images.close();
    await db.close();
  }
}

function summary(report: RetentionReport): Record<string, unknown> {
  const verb = report.dryRun ? 'would remove' : 'removed';
  return {
    mode: report.dryRun ? 'dry run: nothing changed' : 'run',
    ...(report.skipped ? { skipped: report.skipped } : {}),
    at: report.at,
    cutoffs: report.cutoffs,
    [`images ${verb}`]: report.images.removed + report.images.missing,
    'images kept (in use / held)': `${report.images.keptInUse} / ${report.images.keptHeld}`,
    ...(report.compaction
      ? {
          'image segments deleted / rewritten': `${report.compaction.deleted} / ${report.compaction.rewritten} (${report.compaction.moved} images kept and moved)`,
          ...(report.compaction.damaged.length > 0 ? { 'image segments kept: damaged records': report.compaction.damaged.join(', ') } : {}),
          ...(report.compaction.failed.length > 0
            ? { 'image segments left for the next run': report.compaction.failed.map((f) => `${f.segment}: ${f.error}`) }
            : {}),
        }
      : {}),
    'images looked at up to': report.images.doneUntil,
    [`hold records ${verb}`]: report.holdsRemoved,
    [`alerts ${verb}`]: report.alertsRemoved,
    ...(report.nonHits.cutoff === null
      ? { 'non-hit tier': 'off (reads follow the detections period)' }
      : {
          [`non-hits ${verb}`]: report.nonHits.removed,
          'non-hits kept (hits / held / matching unfinished)': `${report.nonHits.kept.hits} / ${report.nonHits.kept.held} / ${report.nonHits.kept.matchingUnfinished}`,
          [`non-hit images ${verb}`]: report.nonHits.images.removed + report.nonHits.images.missing,
          'non-hit chains (tombstones)': report.nonHits.chains.map((c) => `${c.collectorId} ${c.removed} in ${c.fromSeq}..${c.uptoSeq}`),
        }),
    [`detections ${verb}`]: report.detections.removed,
    'chains cut': report.detections.chains.map((c) => `${c.collectorId} ${c.fromSeq}..${c.uptoSeq}`),
    'partitions dropped': report.detections.partitionsDropped.map((p) => `${p.name} (${p.rows} rows)`),
    [`audit rows ${verb}`]: report.auditRemoved,
  };
}

const isPreset = (value: string): value is RetentionPreset => (RETENTION_PRESETS as readonly string[]).includes(value);
