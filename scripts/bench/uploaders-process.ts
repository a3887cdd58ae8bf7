import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { UploaderMessage, UploadRun } from './ingest-uploaders.ts';

/**
 * Runs one upload in the collectors' child process (ingest-uploaders.ts) and hands each
 * answer to `onBatch` as it is reported; resolves to the seconds the collectors were busy.
 * The child is its own module so that the parent never imports it (it listens for its run
 * on `process` when loaded).
 */
export function runUploaders(upload: UploadRun, onBatch: (latencyMs: number, status: string) => void): Promise<number> {
  const child = fork(join(import.meta.dirname, 'ingest-uploaders.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<number>((resolve, reject) => {
    child.on('message', (message: UploaderMessage) => {
      if (message.kind === 'failed') reject(new Error(`uploader failed: ${message.error}`));
      if (message.kind === 'done') resolve(message.busySeconds);
      if (message.kind === 'batch') onBatch(message.latencyMs, message.status);
    });
    child.once('exit', (code) => reject(new Error(`uploader exited (${code}) before it was done`)));
    child.send(upload);
  });
}
