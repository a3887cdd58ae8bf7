/**
 * The key builder's loop (docs/search.md "Keys built after commit"): woken by ingest's NOTIFY
 * on `detections`, polling as the safety net. A pass takes a horizon, waits until it is
 * settled, then keys pages up to it (key-builder.ts). Runs in the hub and in `hub -- worker`
 * (start-workers.ts); when both run, the cursor's row lock leaves the work to one of them.
 */
import { DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Database } from '../db/client.ts';
import type { Listen } from '../db/listen.ts';
import type { DbSession } from '../db/session.ts';
import type { Clock } from '../platform/clock.ts';
import type { Log } from '../platform/log.ts';
import { createWakeableLoop } from '../platform/loops/wakeable-loop.ts';
import { horizonSettled, takeHorizon, type Horizon } from '../webhooks/detection-horizon.ts';
import { buildKeyPage, KEY_PAGE_SIZE, type KeyPageOptions } from './key-builder.ts';

const STALL_WARN_MS = 60_000;
/** The other process holds the cursor for one page (well under a second): look again after this. */
const BUSY_WAIT_MS = 200;

export interface KeyBuilderOptions extends KeyPageOptions {
  /** The safety net when a NOTIFY is lost (default 1 s). */
  pollMs?: number;
  /** How soon to look again while the horizon waits for open batches (default 20 ms). */
  settleWaitMs?: number;
  /** Pages keyed before a pass yields (default 10: 50,000 detections, 10,000 on PGlite). */
  maxPagesPerPass?: number;
}

export interface KeyPassOutcome {
  /** False: the horizon still waits for a transaction in progress; nothing was keyed. */
  settled: boolean;
  keyed: number;
  caughtUp: boolean;
  busy?: boolean;
}

export interface KeyBuilderWorker {
  runOnce(): Promise<KeyPassOutcome>;
  /** Passes until the cursor reaches the sequence as it stood when called (tests, the bench). */
  drain(): Promise<number>;
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
  /** Detections keyed by this process since it started, and the time spent keying them (the bench's throughput). */
  readonly keyedTotal: number;
  readonly keyingMs: number;
}

export function createKeyBuilder(deps: { db: DbSession; clock: Clock; log: Log }, options: KeyBuilderOptions = {}): KeyBuilderWorker {
  const pollMs = options.pollMs ?? 1000;
  const settleWaitMs = options.settleWaitMs ?? 20;
  const maxPages = options.maxPagesPerPass ?? 10;
  // PGlite has one connection: a page's transaction holds every other statement (ingest's
  // included) until it commits, so its pages are a fifth of the size.
  const pageSize = options.pageSize ?? (deps.db.kind === 'pglite' ? KEY_PAGE_SIZE / 5 : KEY_PAGE_SIZE);
  const pageOptions: KeyPageOptions = { pageSize, ...(options.beforeCursor ? { beforeCursor: options.beforeCursor } : {}) };
  let horizon: Horizon | null = null;
  let takenAt = 0;
  let warned = false;
  let keyedTotal = 0;
  let keyingMs = 0;

  async function runOnce(): Promise<KeyPassOutcome> {
    if (!horizon) {
      horizon = await takeHorizon(deps.db);
      takenAt = deps.clock.now().getTime();
      warned = false;
    }
    if (!(await horizonSettled(deps.db, horizon))) {
      // A batch holds its transaction for milliseconds; a minute means a long writer holds
      // the keys back (searches still find its reads, through the plain indexes): say so once.
      if (!warned && deps.clock.now().getTime() - takenAt > STALL_WARN_MS) {
        warned = true;
        deps.log.warn({ waiting_for: horizon.inFlight.slice(0, 10) }, 'search key builder waits for a transaction open for over a minute');
      }
      return { settled: false, keyed: 0, caughtUp: false };
    }
    let keyed = 0;
    for (let page = 0; page < maxPages; page += 1) {
      const started = performance.now();
      const outcome = await buildKeyPage(deps.db, horizon.lastPk, deps.clock.now(), pageOptions);
      if (outcome.keyed > 0) keyingMs += performance.now() - started;
      keyed += outcome.keyed;
      keyedTotal += outcome.keyed;
      if (outcome.busy) return { settled: true, keyed, caughtUp: false, busy: true };
      if (outcome.done) {
        horizon = null;
        return { settled: true, keyed, caughtUp: true };
      }
    }
    return { settled: true, keyed, caughtUp: false };
  }

  async function drain(): Promise<number> {
    let keyed = 0;
    horizon = null;
    for (;;) {
      const outcome = await runOnce();
      keyed += outcome.keyed;
      if (outcome.caughtUp) return keyed;
      if (!outcome.settled || outcome.busy === true) await new Promise((resolve) => setTimeout(resolve, settleWaitMs));
    }
  }

  const loop = createWakeableLoop({
    channel: DETECTIONS_CHANNEL,
    errorWaitMs: pollMs,
    log: deps.log,
    name: 'search key builder',
    // A burst of batches (one NOTIFY each) becomes one pass at most every 200 ms: pages of
    // hundreds of reads instead of one small page a batch, well inside the 2 s lag goal.
    minIntervalMs: 200,
    pass: async () => {
      const outcome = await runOnce();
      if (outcome.busy === true) return BUSY_WAIT_MS;
      if (!outcome.settled) return settleWaitMs;
      return outcome.caughtUp ? pollMs : 0;
    },
  });

  return {
    runOnce,
    drain,
    start: (listen) => loop.start(listen),
    stop: () => loop.stop(),
    wake: () => loop.wake(),
    get keyedTotal() {
      return keyedTotal;
    },
    get keyingMs() {
      return keyingMs;
    },
  };
}

/** Started by start-workers.ts, LISTENing for stored batches. */
export async function startKeyBuilder(deps: { db: Database; clock: Clock; log: Log }, options: KeyBuilderOptions = {}): Promise<KeyBuilderWorker> {
  const worker = createKeyBuilder(deps, options);
  await worker.start(deps.db.listen.bind(deps.db));
  return worker;
}
