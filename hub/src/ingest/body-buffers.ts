/**
 * Reused buffers for batch-upload bodies. Each batch with images is ~4.3 MB, and fresh
 * memory of that size is "external" to V8: every ~64 MB of it starts a full collection of
 * the whole heap (seen with --trace-incremental-marking: "external memory pressure"), which
 * on a four-collector load was several full collections a second and ~10 % of the machine's
 * CPU (perf). Reading the body into a buffer kept from an earlier upload halves that
 * memory (the socket's own chunks remain). Paired A/B in docs/performance.md.
 *
 * A buffer may be given back only when nothing refers to its bytes any more: the batch
 * route gives it back after storeBatch settles, which waits for its image writes to settle
 * as well (store-batch.ts), and nothing else keeps a view into a request body.
 */
export interface BodyBuffers {
  /** A buffer of `bufferBytes`, or undefined when `size` does not fit one (allocate it then). */
  take(size: number): ArrayBuffer | undefined;
  /** Back to the pool (kept while fewer than `maxIdle` wait; otherwise left to the GC). */
  give(buffer: ArrayBuffer): void;
  /** Buffers waiting, and buffers made so far. */
  stats(): { idle: number; created: number };
}

export interface BodyBuffersOptions {
  /** Size of each buffer: a body larger than this is allocated for itself. */
  bufferBytes: number;
  /** Most buffers kept idle (memory held between bursts: maxIdle x bufferBytes). */
  maxIdle: number;
}

/** 8 MiB holds a batch of 50 with both images at the sizes cameras send (~4.3 MB). */
export const DEFAULT_BODY_BUFFER_BYTES = 8 * 1024 * 1024;
/** Four uploads at once reuse buffers; more allocate and the extra are dropped after. */
export const DEFAULT_IDLE_BODY_BUFFERS = 4;

export function createBodyBuffers(options: BodyBuffersOptions): BodyBuffers {
  const idle: ArrayBuffer[] = [];
  let created = 0;
  return {
    take(size) {
      if (size > options.bufferBytes) return undefined;
      const reused = idle.pop();
      if (reused) return reused;
      created += 1;
      return new ArrayBuffer(options.bufferBytes);
    },
    give(buffer) {
      if (buffer.byteLength !== options.bufferBytes || idle.length >= options.maxIdle || idle.includes(buffer)) return;
      idle.push(buffer);
    },
    stats: () => ({ idle: idle.length, created }),
  };
}
