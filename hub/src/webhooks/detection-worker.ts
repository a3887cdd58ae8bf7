/**
 * The detection events worker (docs/webhooks.md "Detection events"): woken by ingest's NOTIFY
 * on `detections`, polling as the safety net. A pass takes a horizon (detection-horizon.ts),
 * waits until it is settled, then queues pages up to it (detection-events.ts). The horizon is
 * kept in memory only: after a restart a new one is taken, and the cursor says where to go on.
 */
import type { Clock } from '../platform/clock.ts';
import { DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Database } from '../db/client.ts';
import type { Listen } from '../db/listen.ts';
import type { DbSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';
import { createWakeableLoop } from '../platform/loops/wakeable-loop.ts';
import { DETECTION_PAGE_SIZE, queueDetectionPage } from './detection-events.ts';
import { horizonSettled, takeHorizon, type Horizon } from './detection-horizon.ts';

const STALL_WARN_MS = 60_000;

export interface DetectionEventOptions {
  /** The safety net when a NOTIFY is lost (default 1 s, like the alert worker). */
  pollMs?: number;
  /** How soon to look again while the horizon waits for open batches (default 50 ms). */
  settleWaitMs?: number;
  pageSize?: number;
  /** Pages queued before a pass yields (default 20: 10,000 detections). */
  maxPagesPerPass?: number;
}

export interface PassOutcome {
  /** False: the horizon still waits for a transaction in progress; nothing was read. */
  settled: boolean;
  queued: number;
  /** The cursor reached the horizon (false: more pages wait). */
  caughtUp: boolean;
  /** Another worker on this database holds the cursor: it does the work. */
  busy?: boolean;
}

export interface DetectionEventWorker {
  runOnce(): Promise<PassOutcome>;
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
}

export function createDetectionEventWorker(deps: { db: DbSession; clock: Clock; log: Log }, options: DetectionEventOptions = {}): DetectionEventWorker {
  const pollMs = options.pollMs ?? 1000;
  const settleWaitMs = options.settleWaitMs ?? 50;
  const pageSize = options.pageSize ?? DETECTION_PAGE_SIZE;
  const maxPages = options.maxPagesPerPass ?? 20;
  let horizon: Horizon | null = null;
  let takenAt = 0;
  let warned = false;

  async function runOnce(): Promise<PassOutcome> {
    if (!horizon) {
      horizon = await takeHorizon(deps.db);
      takenAt = deps.clock.now().getTime();
      warned = false;
    }
    if (!(await horizonSettled(deps.db, horizon))) {
      // A batch holds its transaction for milliseconds; a minute means a long writer (or a
      // session left open in a transaction) holds detection events back: say so once.
      if (!warned && deps.clock.now().getTime() - takenAt > STALL_WARN_MS) {
        warned = true;
        deps.log.warn({ waiting_for: horizon.inFlight.slice(0, 10) }, 'webhook detection events wait for a transaction open for over a minute');
      }
      return { settled: false, queued: 0, caughtUp: false };
    }
    let queued = 0;
    for (let page = 0; page < maxPages; page += 1) {
      const outcome = await queueDetectionPage(deps.db, horizon.lastPk, deps.clock.now(), pageSize);
      queued += outcome.queued;
      if (outcome.busy) return { settled: true, queued, caughtUp: false, busy: true };
      if (outcome.done) {
        horizon = null;
        return { settled: true, queued, caughtUp: true };
      }
    }
    return { settled: true, queued, caughtUp: false };
  }

  const loop = createWakeableLoop({
    channel: DETECTIONS_CHANNEL,
    errorWaitMs: pollMs,
    log: deps.log,
    name: 'webhook detection events',
    // A burst of batches (one NOTIFY each) becomes one pass at most every 100 ms.
    minIntervalMs: 100,
    pass: async () => {
      const outcome = await runOnce();
      if (!outcome.settled || outcome.busy === true) return settleWaitMs;
      return outcome.caughtUp ? pollMs : 0;
    },
  });

  return { runOnce, start: (listen) => loop.start(listen), stop: () => loop.stop(), wake: () => loop.wake() };
}

/** Started beside the webhook delivery worker (start-workers.ts), LISTENing for stored batches. */
export async function startDetectionEvents(deps: { db: Database; clock: Clock; log: Log }, options: DetectionEventOptions = {}): Promise<DetectionEventWorker> {
  const worker = createDetectionEventWorker(deps, options);
  await worker.start(deps.db.listen.bind(deps.db));
  return worker;
}
