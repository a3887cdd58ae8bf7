import type { DbSession } from './db/session.ts';
import type { ImageStore } from './images/image-store.ts';
import type { LoadMonitor } from './ingest/load-monitor.ts';
import type { Clock } from './clock.ts';
import type { HubConfig } from './config.ts';
import type { Log } from './log.ts';
import type { HubMetrics } from './metrics/hub-metrics.ts';

/**
 * What routes and verbs get from the process: passed down from `main.ts` (or a test),
 * never imported as singletons.
 */
export interface HubDeps {
  db: DbSession;
  images: ImageStore;
  load: LoadMonitor;
  clock: Clock;
  log: Log;
  config: HubConfig;
  /** The process's metrics registry (docs/metrics.md); absent: createHubApp makes one. */
  metrics?: HubMetrics;
}
