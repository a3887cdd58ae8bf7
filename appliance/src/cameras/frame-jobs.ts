import { Worker } from 'node:worker_threads';
import type { PlateBox } from '../reader/types.ts';
import type { GreyThumbnail } from './frame-change.ts';

/**
 * The main-loop side of the frame worker (frame-worker.ts): one worker per appliance, shared by
 * every ordinary camera, started on first use and again after a crash. Each camera has at most
 * one frame in the worker at a time (snapshot-camera.ts), so the queue is a few jobs long.
 */

export type FrameJob = { id: number; op: 'thumbnail'; jpeg: Uint8Array } | { id: number; op: 'crop'; jpeg: Uint8Array; box: PlateBox };

export type FrameAnswer =
  | { id: number; ok: true; op: 'thumbnail'; thumbnail: GreyThumbnail; width: number; height: number }
  | { id: number; ok: true; op: 'crop'; jpeg: Uint8Array }
  | { id: number; ok: false; message: string };

export interface FrameJobs {
  thumbnail(jpeg: Uint8Array): Promise<{ thumbnail: GreyThumbnail; width: number; height: number }>;
  crop(jpeg: Uint8Array, box: PlateBox): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * From TypeScript sources (tsx: development, tests) the worker is the .ts file, loaded through
 * tsx's loader, which a worker does not inherit; from the bundle (appliance/build.mjs) it is
 * `frame-worker.mjs` beside `main.mjs`.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./frame-worker.mjs', here));
  const entry = new URL('./frame-worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

export function openFrameJobs(): FrameJobs {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (a: FrameAnswer) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error): void => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startWorker();
    w.unref();
    w.on('message', (answer: FrameAnswer) => {
      const p = pending.get(answer.id);
      pending.delete(answer.id);
      p?.resolve(answer);
    });
    w.on('error', (error) => {
      worker = undefined;
      failAll(new Error(`frame worker failed: ${error.message}`));
    });
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      failAll(new Error('frame worker exited'));
    });
    worker = w;
    return w;
  };
  const run = (job: { op: 'thumbnail'; jpeg: Uint8Array } | { op: 'crop'; jpeg: Uint8Array; box: PlateBox }): Promise<FrameAnswer> => {
    const id = nextId++;
    return new Promise<FrameAnswer>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      ensure().postMessage({ ...job, id });
    });
  };
  return {
    async thumbnail(jpeg) {
      const a = await run({ op: 'thumbnail', jpeg });
      if (!a.ok) throw new Error(a.message);
      if (a.op !== 'thumbnail') throw new Error('frame worker answered the wrong job');
      return { thumbnail: a.thumbnail, width: a.width, height: a.height };
    },
    async crop(jpeg, box) {
      const a = await run({ op: 'crop', jpeg, box });
      if (!a.ok) throw new Error(a.message);
      if (a.op !== 'crop') throw new Error('frame worker answered the wrong job');
      return a.jpeg;
    },
    async close() {
      const w = worker;
      worker = undefined;
      failAll(new Error('frame worker closed'));
      if (w) await w.terminate();
    },
  };
}
