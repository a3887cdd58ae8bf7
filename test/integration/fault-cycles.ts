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
 * left, or `timeoutMs` passes; stops it gracefully. Resolves to the last count.
 */
export async function drainWithWorker(db: DbSession, env: Record<string, string>, openSql: string, timeoutMs: number): Promise<number> {
  const worker = await startAlertWorkerProcess({ env });
  try {
    const deadline = Date.now() + timeoutMs;
    let open = -1;
    while (Date.now() < deadline) {
      const [row] = await db.sql<{ open: number }>(openSql);
      open = Number(row?.open ?? -1);
      if (open === 0) break;
      await sleep(200);
    }
    return open;
  } finally {
    await worker.stop();
  }
}
