import type { DbSession } from '../db/session.ts';
import type { Clock } from './clock.ts';
import type { HubConfig } from './config/hub-config.ts';
import type { Log } from './log.ts';
import type { HubMetrics } from './hub-metrics.ts';

/**
 * What every domain's verbs and routes stand on: passed down from `main.ts` (or a test),
 * never imported as singletons. A domain that needs more declares it beside its own code
 * (`IngestDeps` adds the image store and the load monitor); the composition root
 * (`hub/src/hub-deps.ts`) puts the whole process's set together.
 */
export interface PlatformDeps {
  db: DbSession;
  clock: Clock;
  log: Log;
  config: HubConfig;
  /** The process's metrics registry (docs/metrics.md); absent: createHubApp makes one. */
  metrics?: HubMetrics;
}
