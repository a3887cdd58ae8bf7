/** The messages between `open-reader.ts` (the caller's thread) and `reader-worker.ts`. */
import type { FrameResult, ReaderError, ReadOptions } from './types.ts';

export interface WorkerSettings {
  threads: number;
  /** A folder holding the model files instead of the installed package's (tests use it). */
  modelDir?: string | undefined;
}

export type WorkerRequest = { type: 'read'; id: number; jpeg: Uint8Array; options: ReadOptions } | { type: 'close' };

export interface ErrorReply {
  code: ReaderError['code'];
  message: string;
}

export type WorkerReply =
  | { type: 'ready'; error?: ErrorReply }
  | { type: 'result'; id: number; result: FrameResult }
  | { type: 'error'; id: number; error: ErrorReply }
  | { type: 'closed' };
