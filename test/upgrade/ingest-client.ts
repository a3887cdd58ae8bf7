import { BATCH_PATH } from '@alpr/shared/protocol/paths';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { request } from 'undici';
import { batchResponseSchema } from '@alpr/shared/protocol/batch';
import { encodeBatch, jpegLike, sampleDetection } from '../../hub/src/ingest/uploads.test-helper.ts';

/**
 * Plumbing shared by the backup and upgrade tests: a collector client that remembers every
 * batch it sent and what the hub answered (so a test can send them all again and count
 * duplicates), the hub CLI run as a child process (of this checkout or an older one), and
 * empty databases on the test server.
 */
const execFileAsync = promisify(execFile);
export const repoRoot = join(import.meta.dirname, '..', '..');
export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface SentEntry {
  detection: ReturnType<typeof sampleDetection>;
  plateCrop: Buffer;
  fullScene: Buffer;
}

export interface SentBatch {
  entries: SentEntry[];
  /** detection_id to the hub's answer (`stored`, `duplicate`, ...); empty when not acknowledged. */
  answers: Map<string, string>;
}

export interface Collector {
  apiKey: string;
  sent: SentBatch[];
  /** Every image sent, by hash. */
  images: Map<string, Buffer>;
  /** Why the last failed upload failed (a status and body, or a socket error). */
  lastError?: string;
}

export const newCollector = (apiKey: string): Collector => ({ apiKey, sent: [], images: new Map() });

/** Batches the hub has answered. */
export const ackedBatches = (collector: Collector): number => collector.sent.filter((b) => b.answers.size > 0).length;

/**
 * Waits until the collectors together have `target` answered batches. A hub that stops
 * answering fails the test after `timeoutMs` with the last upload errors and `context()` (the
 * hub's own output) instead of holding a CI run until its deadline.
 */
export async function waitForAcks(collectors: Collector | readonly Collector[], target: number, timeoutMs: number, context: () => string): Promise<void> {
  const all = Array.isArray(collectors) ? collectors : [collectors as Collector];
  const acked = (): number => all.reduce((n, c) => n + ackedBatches(c), 0);
  const deadline = Date.now() + timeoutMs;
  while (acked() < target) {
    if (Date.now() > deadline) {
      const errors = all.map((c) => c.lastError ?? 'none').join('; ');
      throw new Error(`${acked()} of ${target} batches answered after ${timeoutMs} ms; last upload errors: ${errors}\n${context().slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A fresh batch of `size` detections with both images (small ones: the test is about copies, not throughput). */
export function freshBatch(collector: Collector, size = 4): SentBatch {
  const entries = Array.from({ length: size }, () => ({ detection: sampleDetection(), plateCrop: jpegLike(3_000), fullScene: jpegLike(12_000) }));
  for (const e of entries) for (const image of [e.plateCrop, e.fullScene]) collector.images.set(sha256(image), image);
  const batch = { entries, answers: new Map<string, string>() };
  collector.sent.push(batch);
  return batch;
}

/** POSTs a batch; resolves to the answers by detection_id, or throws on a refusal or a cut connection. */
export async function upload(url: string, collector: Collector, batch: SentBatch): Promise<Map<string, string>> {
  const { body, contentType } = encodeBatch(batch.entries);
  const res = await request(`${url}${BATCH_PATH}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-api-key': collector.apiKey },
    body,
    // A hub answers a batch in well under a second; a request left hanging (a connection a
    // stopping hub or the test's balancer never closed) is cut after a minute and tried again,
    // as the appliance's uplink does, instead of waiting undici's five-minute default.
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  if (res.statusCode !== 201 && res.statusCode !== 202) throw new Error(`status ${res.statusCode}: ${await res.body.text()}`);
  const answer = batchResponseSchema.parse(await res.body.json());
  const answers = new Map<string, string>();
  for (const r of answer.results) {
    const entry = batch.entries[r.index];
    if (entry) answers.set(entry.detection.detection_id, r.status);
  }
  batch.answers = answers;
  return answers;
}

/**
 * Like an appliance's uplink: a batch is sent until the hub answers it (a refused or cut
 * request is tried again after `retryMs`), then the next one. Stops after the batch in
 * flight when `stop()` returns true.
 */
export async function keepUploading(url: () => string, collector: Collector, stop: () => boolean, retryMs = 100): Promise<{ retries: number }> {
  let retries = 0;
  while (!stop()) {
    const batch = freshBatch(collector);
    for (;;) {
      try {
        await upload(url(), collector, batch);
        break;
      } catch (err) {
        collector.lastError = err instanceof Error ? err.message : String(err);
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  }
  return { retries };
}

/** Every detection id the collector sent. */
export const sentIds = (collector: Collector): string[] => collector.sent.flatMap((b) => b.entries.map((e) => e.detection.detection_id));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run hub -- <args>` of the checkout at `root`, with the hub environment `env`. */
export async function hubCli(env: Record<string, string>, args: readonly string[], root = repoRoot): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', join(root, 'hub/src/cli/main.ts'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const err = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(error) };
  }
}

/** An empty (unmigrated) database on the server at `adminUrl`, dropped at teardown. */
export async function emptyDatabase(t: { teardown(fn: () => unknown): void }, adminUrl: string): Promise<string> {
  const name = `alpr_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  t.teardown(async () => {
    const again = postgres(adminUrl, { max: 1, onnotice: () => undefined });
    await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await again.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
