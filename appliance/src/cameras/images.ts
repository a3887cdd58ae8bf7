import type { ImageFetch } from '@alpr/shared/adapters/types';
import type { DetectionImages } from '@alpr/shared/detection/schema';
import { isTransient } from '../errors.ts';
import type { CameraResponse } from './http/transport.ts';
import type { Clock, Sleep } from './ports.ts';
import type { TokenBucket } from './token-bucket.ts';

/**
 * Image downloads from a camera (error rule 3 in docs/cameras.md: a timeout, one retry on transient
 * errors, log, keep the detection without the image). The request timeout is the camera
 * client's (`requestTimeoutMs`). vendor_b adds two things: a token bucket in front of
 * every request, and 404 = "not yet" because a thumbnail exists only once its event has
 * ended (docs/camera-formats.md "vendor_b images"), retried until `notFoundWaitMs` (uiprotect waits
 * up to 10 s).
 */

export interface ImageFetchPolicy {
  /** Extra attempts after a network error, a timeout, a 5xx or a 429 (one). */
  transientRetries: number;
  transientRetryDelayMs: number;
  /** How long a 404 keeps being retried; 0 = a 404 is final (vendor_a). */
  notFoundWaitMs: number;
  notFoundRetryMs: number;
  bucket?: TokenBucket;
}

export const VENDOR_A_IMAGE_POLICY: ImageFetchPolicy = {
  transientRetries: 1,
  transientRetryDelayMs: 200,
  notFoundWaitMs: 0,
  notFoundRetryMs: 0,
};

export type ImageResult = { ok: true; bytes: Uint8Array; rateLimited: number } | { ok: false; reason: string; rateLimited: number };

interface FetchDeps {
  clock: Clock;
  sleep: Sleep;
  signal: AbortSignal;
}

const isTransientStatus = (status: number): boolean => status >= 500 || status === 429;

/** Seconds of a `Retry-After` header (delta form only), capped: a console may say 60. */
function retryAfterMs(res: CameraResponse, fallbackMs: number): number {
  const raw = res.headers['retry-after'];
  const seconds = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 5_000) : fallbackMs;
}

export async function fetchImage(
  get: (path: string) => Promise<CameraResponse>,
  path: string,
  policy: ImageFetchPolicy,
  deps: FetchDeps,
): Promise<ImageResult> {
  const deadline = deps.clock.now() + policy.notFoundWaitMs;
  let transientLeft = policy.transientRetries;
  let rateLimited = 0;
  const fail = (reason: string): ImageResult => ({ ok: false, reason, rateLimited });
  for (;;) {
    if (deps.signal.aborted) return fail('runner stopped');
    const wait = policy.bucket?.reserve() ?? 0;
    if (wait > 0) await deps.sleep(wait, deps.signal);
    let res: CameraResponse;
    try {
      res = await get(path);
    } catch (error) {
      const transient = isTransient(error);
      const reason = error instanceof Error ? error.message : String(error);
      if (!transient || transientLeft <= 0) return fail(reason);
      transientLeft -= 1;
      await deps.sleep(policy.transientRetryDelayMs, deps.signal);
      continue;
    }
    if (res.status === 200) {
      return res.body.length > 0 ? { ok: true, bytes: new Uint8Array(res.body), rateLimited } : fail('empty image');
    }
    const remaining = deadline - deps.clock.now();
    if (res.status === 404 && remaining >= policy.notFoundRetryMs && policy.notFoundWaitMs > 0) {
      await deps.sleep(policy.notFoundRetryMs, deps.signal);
      continue;
    }
    if (res.status === 429) {
      rateLimited += 1;
      // Back off as told; while the 404 window lasts this costs no transient retry.
      const backoff = retryAfterMs(res, 1_000);
      if (remaining >= backoff) {
        await deps.sleep(backoff, deps.signal);
        continue;
      }
    }
    if (isTransientStatus(res.status) && transientLeft > 0) {
      transientLeft -= 1;
      await deps.sleep(res.status === 429 ? retryAfterMs(res, 1_000) : policy.transientRetryDelayMs, deps.signal);
      continue;
    }
    return fail(`HTTP ${res.status}`);
  }
}

/** Fetch every image a detection names; failures are reported, never thrown. */
export async function fetchAll(
  fetches: readonly ImageFetch[],
  fetchOne: (path: string) => Promise<ImageResult>,
): Promise<{ images: DetectionImages; failures: { path: string; reason: string }[]; rateLimited: number }> {
  const images: DetectionImages = {};
  const failures: { path: string; reason: string }[] = [];
  let rateLimited = 0;
  for (const f of fetches) {
    const result = await fetchOne(f.path);
    rateLimited += result.rateLimited;
    if (result.ok) images[f.kind] = result.bytes;
    else failures.push({ path: f.path, reason: result.reason });
  }
  return { images, failures, rateLimited };
}
