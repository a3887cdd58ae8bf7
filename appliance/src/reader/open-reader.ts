/**
 * The reader a camera uses: `openFrameReader()` starts a worker thread that holds the models, and
 * `read` sends it a JPEG and waits for its plates. Inference never runs on the caller's event
 * loop, so the other cameras, the buffer and the uplink go on while a frame is read. A missing
 * model does not fail the opening: every `read` rejects with `model_missing` naming the file, so
 * the camera that owns the reader can go offline with that message.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ReaderError, type FrameReader, type FrameResult } from './types.ts';
import type { ErrorReply, WorkerReply, WorkerRequest, WorkerSettings } from './worker-messages.ts';

export interface OpenReaderOptions {
  /** Threads for inference; default: all cores but one, at least one (the appliance has 2). */
  threads?: number;
  /** A folder with the model files instead of the installed package's. */
  modelDir?: string;
}

// In the bundle `appliance/build.mjs` writes the worker beside main.mjs as reader-worker.mjs, plain
// JavaScript. Run from source (tsx, tests) it is TypeScript, and a worker does not inherit tsx's
// loader on Node 20: a two-line bootstrap loads it through tsx's API instead.
const FROM_SOURCE = import.meta.url.endsWith('.ts');

function startWorker(settings: WorkerSettings): Worker {
  if (!FROM_SOURCE) return new Worker(new URL('./reader-worker.mjs', import.meta.url), { workerData: settings });
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./reader-worker.ts', import.meta.url).href);
  const bootstrap = `import(${api}).then(({ tsImport }) => tsImport(${entry}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { eval: true, workerData: settings });
}

export async function openFrameReader(options: OpenReaderOptions = {}): Promise<FrameReader> {
  const settings: WorkerSettings = {
    threads: options.threads ?? Math.max(1, availableParallelism() - 1),
    modelDir: options.modelDir,
  };
  const worker = startWorker(settings);
  const pending = new Map<number, { resolve: (r: FrameResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: ReaderError | undefined;
  let closed = false;
  let onClosed: (() => void) | undefined;

  const failAll = (error: ReaderError): void => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };

  await new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: WorkerReply) => {
      switch (reply.type) {
        case 'ready':
          if (reply.error) failure = toError(reply.error);
          resolve();
          return;
        case 'result':
          pending.get(reply.id)?.resolve(reply.result);
          pending.delete(reply.id);
          return;
        case 'error':
          pending.get(reply.id)?.reject(toError(reply.error));
          pending.delete(reply.id);
          return;
        case 'closed':
          onClosed?.();
          return;
      }
    });
    worker.on('error', (error) => {
      failure = new ReaderError('failed', `reader worker failed: ${error.message}`);
      failAll(failure);
      reject(failure);
    });
    worker.on('exit', (code) => {
      if (!closed) {
        failure ??= new ReaderError('failed', `reader worker exited (code ${code})`);
        failAll(failure);
        reject(failure);
      }
    });
  });

  return {
    read(jpeg, readOptions = {}) {
      if (closed) return Promise.reject(new ReaderError('closed', 'reader is closed'));
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<FrameResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // A copy, so the caller keeps its buffer (it may still build the detection's crop from it).
        const request: WorkerRequest = { type: 'read', id, jpeg: new Uint8Array(jpeg), options: readOptions };
        worker.postMessage(request);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      failAll(new ReaderError('closed', 'reader is closed'));
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.postMessage({ type: 'close' } satisfies WorkerRequest);
        setTimeout(resolve, 5000).unref();
      });
      await worker.terminate();
    },
  };
}

function toError(reply: ErrorReply): ReaderError {
  return new ReaderError(reply.code, reply.message);
}
