import { Worker } from 'node:worker_threads';
import type { RecordLocation } from './image-journal.ts';

/**
 * Copies journal records into the image tree on a worker thread (tree-mover-worker.ts): the
 * hub's event loop sends one message per run of records and gets the written paths back,
 * instead of awaiting six file calls per image itself (measured: ~14 % of the main thread's
 * time with images, plus the garbage those promises leave). A worker that dies is replaced
 * on the next call; the calls it had are rejected and the image store retries them.
 */
export interface TreeMover {
  /** Path written for each record, null where the tree already had it. */
  move(segmentPath: string, records: readonly RecordLocation[]): Promise<(string | null)[]>;
  close(): Promise<void>;
}

export interface MoveRequest {
  id: number;
  segmentPath: string;
  records: readonly RecordLocation[];
}
export type MoveReply = { id: number; paths: (string | null)[] } | { id: number; error: string };

const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./tree-mover-worker.ts', import.meta.url).href)}); })`;

export function startTreeMover(root: string): TreeMover {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (paths: (string | null)[]) => void; reject: (error: Error) => void }>();

  const failAll = (error: Error): void => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  const spawn = (): Worker => {
    // The hub runs its TypeScript through tsx, whose loader a worker does not inherit on
    // Node 20: the worker registers it before importing its module.
    const started = new Worker(WORKER_BOOT, { eval: true, workerData: { root } });
    started.on('message', (reply: MoveReply) => {
      const call = pending.get(reply.id);
      pending.delete(reply.id);
      if (!call) return;
      if ('error' in reply) call.reject(new Error(`image mover: ${reply.error}`));
      else call.resolve(reply.paths);
    });
    started.on('error', (error) => failAll(error));
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`image mover thread exited (${code})`));
    });
    // Idle between calls it must not keep the process alive; busy, it must (a CLI awaiting
    // drain() would otherwise exit mid-move).
    started.unref();
    return started;
  };

  return {
    move(segmentPath, records) {
      worker ??= spawn();
      const id = nextId++;
      const target = worker;
      target.ref();
      return new Promise<(string | null)[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        target.postMessage({ id, segmentPath, records } satisfies MoveRequest);
      }).finally(() => {
        if (pending.size === 0) target.unref();
      });
    },
    async close() {
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}
