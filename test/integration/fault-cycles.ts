/**
 * Test helpers for the worker fault tests (alerts, bot delivery): the worker process
 * (`npm run hub -- worker`) SIGKILLed again and again, then run once more until its queues
 * are drained. Not imported by production code.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startAlertWorkerProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import type { DbSession } from '../../hub/src/db/session.ts';

/** `cycles` starts of the worker, each SIGKILLed after a varying `minMs`..`minMs + spreadMs`. */
export async function killWorkerRepeatedly(env: Record<string, string>, cycles: number, minMs: number, spreadMs: number): Promise<void> {
  for (let cycle = 1; cycle <= cycles; cycle++) {
    const worker: RunningProcess = await startAlertWorkerProcess({ env });
    await sleep(minMs + ((cycle * 397) % spreadMs));
    await worker.kill();
  }
}

/**
 * Runs the worker once more until `openSql` (a query answering `open`) says nothing is
 * left; stops it gracefully and resolves to the last count. It waits as long as the count
 * keeps falling: it gives up when `stallMs` pass without the count going down, or at
 * `maxMs` in all (a loaded machine drains a backlog slower, not never). Progress goes to
 * `note` (a test's comment) every 15 s.
 */
export async function drainWithWorker(
  db: DbSession,
  env: Record<string, string>,
  openSql: string,
  stallMs: number,
  options: { maxMs?: number; note?: (line: string) => void } = {},
): Promise<number> {
  const worker = await startAlertWorkerProcess({ env });
  const started = Date.now();
  const hardStop = started + (options.maxMs ?? 300_000);
  try {
    let open = -1;
    let lowest = Number.POSITIVE_INFINITY;
    let lastProgress = Date.now();
    let lastNote = Date.now();
    while (Date.now() < hardStop && Date.now() - lastProgress < stallMs) {
      const [row] = await db.sql<{ open: number }>(openSql);
      open = Number(row?.open ?? -1);
      if (open === 0) break;
      if (open < lowest) {
        lowest = open;
        lastProgress = Date.now();
      }
      if (Date.now() - lastNote >= 15_000) {
        lastNote = Date.now();
        options.note?.(`${((Date.now() - started) / 1000).toFixed(0)} s: ${open} left to drain`);
      }
      await sleep(200);
    }
    options.note?.(`drained to ${open} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return open;
  } finally {
    await worker.stop();
  }
}
