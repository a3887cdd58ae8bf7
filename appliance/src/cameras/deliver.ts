import type { ParsedDetection, ParseOutcome } from '@alpr/shared/adapters/types';
import type { DetectionImages } from '@alpr/shared/detection/schema';
import { servableImages } from '@alpr/shared/detection/image-content';
import { ApplianceError } from '../errors.ts';
import { messageOf } from './errors.ts';
import { fetchAll } from './images.ts';
import type { ImageResult } from './images.ts';
import type { CameraLog, DetectionSink, SinkStatus } from './ports.ts';
import type { CameraStatusTracker } from './status.ts';

/**
 * The part every runner shares: report what could not be parsed (error rule 2 in docs/cameras.md),
 * fetch the images a detection names (rule 3), and hand each detection to the sink IN
 * ORDER. The caller advances its cursor / answers the camera only when this resolves: a
 * throw (ApplianceError `sink_refused`) means some detection was not committed.
 */

export interface DeliverContext {
  source: string;
  sink: DetectionSink;
  status: CameraStatusTracker;
  log: CameraLog;
  /** Absent when the payload carries its images (push) or the camera serves none. */
  fetchImage?: (path: string) => Promise<ImageResult>;
  /** Image downloads in flight at once; the bucket (vendor_b) still paces them. */
  imageConcurrency?: number;
  /**
   * The runner's stop signal. Once aborted nothing more is sunk: an image download cut
   * short by the stop must not turn into a stored detection without its image while the
   * cursor moves past it.
   */
  signal?: AbortSignal;
}

export interface DeliverSummary {
  counts: Record<SinkStatus, number>;
  accepted: number;
}

/** Rule 2: a warning per broken item and per unreadable payload, counted, never thrown. */
export function reportIssues(outcome: ParseOutcome, ctx: Pick<DeliverContext, 'source' | 'status' | 'log'>): void {
  if (outcome.failure !== undefined) {
    ctx.status.count('errors');
    ctx.status.noteError(outcome.failure);
    ctx.log.warn({ camera: ctx.source, reason: outcome.failure }, 'camera payload not understood');
  }
  for (const issue of outcome.errors) {
    ctx.status.count('errors');
    ctx.log.warn({ camera: ctx.source, item: issue.item, reason: issue.reason }, 'unparseable detection skipped');
  }
}

/** At most `limit` calls of `fn` run at once; a finished call hands its slot to the next. */
function concurrencyLimit(limit: number): <R>(fn: () => Promise<R>) => Promise<R> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** Images judged by their bytes, whatever their label (docs/cameras.md "Image content"). */
async function imagesFor(parsed: ParsedDetection, ctx: DeliverContext): Promise<DetectionImages> {
  const checked = servableImages(await receivedImages(parsed, ctx));
  for (const drop of checked.dropped) {
    ctx.status.count('imagesNotImages');
    ctx.log.warn(
      { camera: ctx.source, detection: parsed.detection.detection_id, kind: drop.kind, size: drop.size, reason: drop.reason },
      'image part is not an image; keeping the detection without it',
    );
  }
  return checked.images;
}

async function receivedImages(parsed: ParsedDetection, ctx: DeliverContext): Promise<DetectionImages> {
  const fetchImage = ctx.fetchImage;
  if (!fetchImage || parsed.fetchImages.length === 0) return parsed.images;
  const wanted = parsed.fetchImages.filter((f) => parsed.images[f.kind] === undefined);
  const fetched = await fetchAll(wanted, fetchImage);
  if (fetched.rateLimited > 0) ctx.status.count('imageRateLimited', fetched.rateLimited);
  for (const failure of fetched.failures) {
    ctx.status.count('imageFailures');
    ctx.log.warn(
      { camera: ctx.source, detection: parsed.detection.detection_id, path: failure.path, reason: failure.reason },
      'image fetch failed; keeping the detection without it',
    );
  }
  return { ...parsed.images, ...fetched.images };
}

/**
 * Old copies (a read the buffer already has, whatever it decided about it) are dropped
 * before their images are fetched and counted `alreadyDelivered`; a read the camera wrote
 * late, behind the cursor, is not one of them and goes through.
 */
async function withoutSeen(detections: readonly ParsedDetection[], ctx: DeliverContext): Promise<readonly ParsedDetection[]> {
  if (detections.length === 0) return detections;
  let seen: ReadonlySet<string>;
  try {
    seen = await ctx.sink.seen(detections.map((d) => d.detection.detection_id));
  } catch (error) {
    ctx.status.count('sinkFailures');
    throw new ApplianceError('sink_refused', messageOf(error), { cause: error });
  }
  if (seen.size === 0) return detections;
  const fresh = detections.filter((d) => !seen.has(d.detection.detection_id));
  ctx.status.count('alreadyDelivered', detections.length - fresh.length);
  ctx.log.debug({ camera: ctx.source, skipped: detections.length - fresh.length }, 'old copies of delivered reads skipped');
  return fresh;
}

export async function deliver(all: readonly ParsedDetection[], ctx: DeliverContext): Promise<DeliverSummary> {
  const counts: Record<SinkStatus, number> = { stored: 0, duplicate: 0, replaced: 0, refused: 0 };
  const detections = await withoutSeen(all, ctx);
  const limit = concurrencyLimit(Math.max(1, ctx.imageConcurrency ?? 4));
  const images = detections.map((d) => limit(() => imagesFor(d, ctx)));
  // Unhandled-rejection guard: imagesFor does not throw, but a sink failure below leaves
  // the remaining promises unawaited.
  for (const p of images) p.catch(() => undefined);
  for (const [i, parsed] of detections.entries()) {
    const item = { detection: parsed.detection, images: await (images[i] as Promise<DetectionImages>), source: ctx.source };
    if (ctx.signal?.aborted) throw new ApplianceError('sink_refused', 'runner stopping; the rest is read again on restart');
    let status: SinkStatus;
    try {
      status = await ctx.sink.accept(item);
    } catch (error) {
      ctx.status.count('sinkFailures');
      ctx.status.noteError(`sink refused a detection: ${messageOf(error)}`);
      throw new ApplianceError('sink_refused', messageOf(error), { cause: error });
    }
    counts[status] += 1;
    if (status === 'refused') {
      ctx.status.count('refusedTooOld');
      ctx.log.warn(
        { camera: ctx.source, detection: parsed.detection.detection_id, captured: parsed.detection.timestamp },
        'read captured before the buffer memory horizon refused (camera clock wrong, or a very old copy)',
      );
      continue;
    }
    ctx.status.read();
    // `raw` keeps what the detection leaves out (vendor make/model codes, raw classes).
    ctx.log.debug({ camera: ctx.source, detection: parsed.detection.detection_id, status, ...(parsed.raw ? { raw: parsed.raw } : {}) }, 'detection accepted');
  }
  return { counts, accepted: detections.length };
}
