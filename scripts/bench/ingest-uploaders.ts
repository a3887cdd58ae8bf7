/**
 * Child process of scripts/bench/hub-ingest.ts: the collectors. Builds batch bodies and
 * posts them to the hub with undici, one upload in flight per collector key, and reports each
 * answer to the parent over IPC. In production the collectors are other machines: in the
 * hub's own process their body building, socket writes and response parsing would sit on the
 * hub's event loop and be counted as the hub's latency (they still share this machine's CPU).
 *
 * Bodies are built before each timed chunk of CHUNK batches, so encoding and hashing are not
 * counted either.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { encodeBatch, sampleDetection, type BatchEntry } from '../../hub/src/ingest/uploads.test-helper.ts';
import { uploadChunk } from './paced-collectors.ts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';

export interface UploadRun {
  url: string;
  /** One collector per key, each with one upload in flight. */
  keys: readonly string[];
  batches: number;
  batchSize: number;
  withImages: boolean;
  cropBytes: number;
  sceneBytes: number;
  /** Detections per second offered by all collectors together, or undefined: flat out (see paced-collectors.ts). */
  ratePerSecond?: number;
}

export type UploaderMessage = { kind: 'batch'; latencyMs: number; status: string } | { kind: 'done'; busySeconds: number } | { kind: 'failed'; error: string };

/** Bodies built ahead of each timed chunk (bounded memory: 40 x 4.3 MB). */
const CHUNK = 40;

// Unique image bytes without 4 MB of CSPRNG per batch: slices of one random pool, each
// stamped with a counter so every image has its own SHA-256 (the store writes each one).
const pool = randomBytes(16 * 1024 * 1024);
let stamp = 0;
function image(size: number): Buffer {
  const at = Math.floor(Math.random() * (pool.length - size));
  const bytes = Buffer.from(pool.subarray(at, at + size));
  bytes.writeUInt32BE(0xffd8ffe0, 0);
  bytes.writeDoubleBE(++stamp, 4);
  bytes.write(randomUUID(), 12, 'latin1');
  return bytes;
}

const plate = (): string => `${randomBytes(3).toString('hex').toUpperCase()}${Math.floor(Math.random() * 90 + 10)}`;

function buildBatch(run: UploadRun): { body: Buffer; contentType: string } {
  const entries: BatchEntry[] = Array.from({ length: run.batchSize }, () => ({
    detection: sampleDetection({ plate: { text: plate(), confidence: 0.9 } }),
    ...(run.withImages ? { plateCrop: image(run.cropBytes), fullScene: image(run.sceneBytes) } : {}),
  }));
  return encodeBatch(entries);
}

const send = (message: UploaderMessage): void => {
  process.send?.(message);
};

async function upload(run: UploadRun): Promise<void> {
  const agent = new Agent({ connections: run.keys.length, keepAliveTimeout: 30_000 });
  let busySeconds = 0;
  try {
    for (let done = 0; done < run.batches; done += CHUNK) {
      const bodies = Array.from({ length: Math.min(CHUNK, run.batches - done) }, () => buildBatch(run));
      const chunkMs = await uploadChunk(bodies, run, {
        now: () => performance.now(),
        sleep,
        answered: (latencyMs, status) => send({ kind: 'batch', latencyMs, status }),
        post: async (batch, apiKey) => {
          const post = () =>
            request(`${run.url}${BATCH_PATH}`, {
              method: 'POST',
              dispatcher: agent,
              headers: { 'content-type': batch.contentType, 'x-api-key': apiKey },
              body: batch.body,
            });
          let retried: string | undefined;
          // A keep-alive connection the server closed while bodies were being built (seconds
          // on a loaded machine) resets on reuse, or fails the body's write (EPIPE) when the
          // close lands mid-send: retried once on a new connection, and counted.
          const res = await post().catch((error: unknown) => {
            const code = (error as { code?: string }).code;
            if (code !== 'ECONNRESET' && code !== 'EPIPE') throw error;
            retried = code;
            return post();
          });
          const answer = (await res.body.json()) as { backpressure?: { reason: string }; error?: { message: string } };
          const status = answer.backpressure
            ? `${res.statusCode} ${answer.backpressure.reason}`
            : answer.error
              ? `${res.statusCode} ${answer.error.message}`
              : String(res.statusCode);
          return retried ? `${status} (retried after ${retried})` : status;
        },
      });
      busySeconds += chunkMs / 1000;
    }
    send({ kind: 'done', busySeconds });
  } finally {
    await agent.close();
  }
}

process.once('message', (run: UploadRun) => {
  upload(run)
    .catch((error: unknown) => send({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
    .finally(() => process.disconnect());
});
