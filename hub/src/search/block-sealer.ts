/**
 * The sealer's loop (posting-blocks.ts; docs/search.md "Postings sealed in blocks"): woken by
 * ingest's NOTIFY at most every few seconds, it seals once the key builder is SEAL_READS
 * reads past the last seal, and merges. Apart from the builder's loop so a seal of a few
 * seconds never holds keys back (the lag goal is 2 s); on PGlite, whose one connection runs
 * one statement at a time, a smaller seal keeps each step short.
 */
import { DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Database } from '../db/client.ts';
import type { Listen } from '../db/listen.ts';
import type { DbSession } from '../db/session.ts';
import type { Clock } from '../platform/clock.ts';
import type { Log } from '../platform/log.ts';
import { createWakeableLoop } from '../platform/loops/wakeable-loop.ts';
import { maintainBlocks, SEAL_READS, SEAL_STEP, type BlockOptions, type BlockPassOutcome } from './posting-blocks.ts';

export interface BlockSealer {
  runOnce(): Promise<BlockPassOutcome>;
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
}

export function createBlockSealer(deps: { db: DbSession; clock: Clock; log: Log }, options: BlockOptions & { pollMs?: number } = {}): BlockSealer {
  const pglite = deps.db.kind === 'pglite';
  const blockOptions: BlockOptions = {
    sealReads: pglite ? SEAL_READS / 5 : SEAL_READS,
    sealStep: pglite ? SEAL_STEP / 5 : SEAL_STEP,
    ...options,
  };
  const pollMs = options.pollMs ?? 10_000;
  let first = true;

  async function runOnce(): Promise<BlockPassOutcome> {
    const outcome = await maintainBlocks(deps.db, deps.clock.now(), { ...blockOptions, mergeAnyway: first });
    first = false;
    if (outcome.sealed > 0 || outcome.merged > 0) deps.log.info(outcome, 'search postings sealed in blocks');
    return outcome;
  }

  const loop = createWakeableLoop({
    channel: DETECTIONS_CHANNEL,
    errorWaitMs: pollMs,
    log: deps.log,
    name: 'search postings sealer',
    minIntervalMs: 5_000,
    pass: async () => {
      await runOnce();
      return pollMs;
    },
  });
  return { runOnce, start: (listen) => loop.start(listen), stop: () => loop.stop() };
}

/** Started by start-workers.ts beside the key builder. */
export async function startBlockSealer(deps: { db: Database; clock: Clock; log: Log }, options: BlockOptions = {}): Promise<BlockSealer> {
  const sealer = createBlockSealer(deps, options);
  await sealer.start(deps.db.listen.bind(deps.db));
  return sealer;
}
