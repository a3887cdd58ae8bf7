import cron from 'node-cron';
import type { Logger } from 'pino';
import type { RetentionHorizons } from '../platform/config/retention-horizons.ts';
import { runRetention, type RetentionDeps, type RetentionReport } from './run.ts';

/**
 * The daily retention run inside the hub (docs/retention.md "Schedule"): a cron expression
 * in UTC, default 03:17. Runs never overlap in one process (noOverlap) and two hub processes
 * never run it together (an advisory lock in the run: the second one reports `skipped`).
 */
export interface RetentionSchedule {
  nextRun(): Date | null;
  stop(): Promise<void>;
}

export function startRetentionSchedule(
  deps: RetentionDeps & { log: Logger },
  options: { schedule: string; horizons: RetentionHorizons; onRun?: (report: RetentionReport) => void },
): RetentionSchedule {
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    options.schedule,
    async () => {
      const run = runRetention(deps, options.horizons).then(
        (report) => {
          deps.log.info({ retention: report }, report.skipped ? 'retention skipped' : 'retention run done');
          const compaction = report.compaction;
          if (compaction && (compaction.failed.length > 0 || compaction.damaged.length > 0)) {
            // Removed images' bytes may still be on disk until a later run succeeds.
            deps.log.error({ failed: compaction.failed, damaged: compaction.damaged }, 'image segment compaction left segments behind');
          }
          options.onRun?.(report);
        },
        (err: unknown) => deps.log.error({ err }, 'retention run failed; the next run tries again'),
      );
      running = run;
      await run;
    },
    { timezone: 'UTC', noOverlap: true, name: 'retention', unref: true },
  );
  return {
    nextRun: () => task.getNextRun(),
    async stop() {
      await task.stop();
      await task.destroy();
      await running;
    },
  };
}
