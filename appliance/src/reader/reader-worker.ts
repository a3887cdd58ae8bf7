/**
 * The worker thread that owns the models. It opens them once, then reads frames one at a time in
 * the order they arrive (inference already uses the threads it was given; two frames at once
 * would only fight over them) and answers each with its result or its error code.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { locateModelFiles } from './model-files.ts';
import { openOcrEngine, type OcrEngine } from './ocr-engine.ts';
import { readFrame } from './read-frame.ts';
import { ReaderError, type ReadOptions } from './types.ts';
import type { WorkerReply, WorkerRequest, WorkerSettings } from './worker-messages.ts';

const port = parentPort;
if (!port) throw new Error('reader-worker.ts runs as a worker thread');
const settings = workerData as WorkerSettings;

const engine: Promise<OcrEngine> = (async () => {
  const files = locateModelFiles(settings.modelDir);
  return openOcrEngine(files, settings.threads);
})();
// A missing model is reported on each read, not as an unhandled rejection here.
engine.catch(() => undefined);

let queue: Promise<unknown> = Promise.resolve();

port.on('message', (request: WorkerRequest) => {
  if (request.type === 'close') {
    queue = queue.then(async () => {
      await (await engine.catch(() => undefined))?.close();
      port.postMessage({ type: 'closed' } satisfies WorkerReply);
    });
    return;
  }
  queue = queue.then(() => answer(request.id, request.jpeg, request.options));
});

engine.then(
  () => port.postMessage({ type: 'ready' } satisfies WorkerReply),
  (error: unknown) => port.postMessage({ type: 'ready', error: asReply(error) } satisfies WorkerReply),
);

async function answer(id: number, jpeg: Uint8Array, options: ReadOptions): Promise<void> {
  try {
    const result = await readFrame(await engine, jpeg, options);
    port?.postMessage({ type: 'result', id, result } satisfies WorkerReply);
  } catch (error) {
    port?.postMessage({ type: 'error', id, error: asReply(error) } satisfies WorkerReply);
  }
}

function asReply(error: unknown): { code: ReaderError['code']; message: string } {
  if (error instanceof ReaderError) return { code: error.code, message: error.message };
  return { code: 'failed', message: error instanceof Error ? error.message : String(error) };
}
