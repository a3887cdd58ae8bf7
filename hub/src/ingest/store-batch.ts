import type { BatchItemResult, BatchResponse } from '@alpr/shared/protocol/batch';
import type { PlatformDeps } from '../platform/deps.ts';
import type { ImageStore } from '../images/image-store.ts';
import type { LoadMonitor } from './load-monitor.ts';
import { countDetections } from '../platform/hub-metrics.ts';
import { HubError } from '../platform/errors.ts';
import { indexImages, type ImageLocation } from '../images/locations.ts';
import { decideBackpressure } from './backpressure.ts';
import { prepareItems, type ReadyDetection, type ReadyImage } from './batch-items.ts';
import type { QueueDepthRefresher } from './queue-depth.ts';
import { commitDetections, type CommitOutcome } from './store-transaction.ts';

/** What the ingest verbs need: the hub's deps plus the shared queue-depth refresher. */
export type IngestDeps = Pick<PlatformDeps, 'db' | 'clock' | 'log' | 'metrics'> & {
  images: ImageStore;
  load: LoadMonitor;
  queueDepth: QueueDepthRefresher;
  /** HUB_MAX_CAPTURE_AHEAD_SECONDS, in ms. */
  maxCaptureAheadMs: number;
};

export interface BatchInput {
  collectorId: string;
  /** The uploaded `detections` array, unvalidated. */
  items: readonly unknown[];
  /** Image bytes by part name. */
  parts: ReadonlyMap<string, Uint8Array>;
}

/**
 * Stores one batch (docs/ingest.md): validates each item
 * (a bad one is `rejected`, the others proceed), writes the images (content-addressed)
 * while the transaction runs and commits metadata, idempotency keys, hash chain, alert-queue
 * rows and the NOTIFY in one transaction once the images are durable (an image orphaned by
 * a failed transaction is harmless: the retry finds it present). Returns the results and,
 * when the hub is loaded, a `backpressure` object (the route answers 202 then).
 */
export async function storeBatch(deps: IngestDeps, input: BatchInput): Promise<BatchResponse> {
  deps.queueDepth.maybeRefresh();
  const verdicts = prepareItems(input.items, input.parts, { now: deps.clock.now(), maxAheadMs: deps.maxCaptureAheadMs });

  // A detection id repeated inside one batch is stored once; later copies are duplicates.
  const firstIndexOf = new Map<string, number>();
  const unique: ReadyDetection[] = [];
  const repeatOf = new Map<number, number>();
  for (const verdict of verdicts) {
    if (!verdict.ok) continue;
    const { index, detection } = verdict.ready;
    const first = firstIndexOf.get(detection.detection_id);
    if (first === undefined) {
      firstIndexOf.set(detection.detection_id, index);
      unique.push(verdict.ready);
    } else {
      repeatOf.set(index, first);
    }
  }

  const outcomes = unique.length === 0 ? new Map<number, CommitOutcome>() : await commitWithImages(deps, input.collectorId, unique);

  const results = verdicts.map((verdict, index): BatchItemResult => {
    if (!verdict.ok) return verdict.result;
    const detectionId = verdict.ready.detection.detection_id;
    const repeated = repeatOf.get(index);
    const outcome = outcomes.get(repeated ?? index);
    if (!outcome) throw new Error(`no outcome for batch item ${index}`);
    return { index, detection_id: detectionId, status: repeated === undefined ? outcome.status : 'duplicate', id: outcome.id };
  });
  const response: BatchResponse = { accepted: results.filter((r) => r.status !== 'rejected').length, results };
  logBatch(deps, input.collectorId, results);
  countDetections(deps.metrics, results);
  const backpressure = decideBackpressure(deps.load.measurements());
  if (backpressure) response.backpressure = backpressure;
  return response;
}

/**
 * Runs the image writes and the transaction side by side, and commits only once every
 * image is durable, with the images' locations indexed in the same transaction: an
 * acknowledged row never names a missing image, and a batch costs max(images, database)
 * plus one round trip (the index with the COMMIT) instead of their sum: a pipelined
 * transaction (db/pipelined-transaction.ts), where BEGIN and COMMIT add no round trips of
 * their own. A failed image write rolls the transaction back (503). The chain-head lock is held meanwhile, which only serializes batches of the
 * same collector (they are sequential anyway). `observeDbWrite` gets the transaction's own
 * time, without the wait for images, so the two backpressure triggers stay apart.
 */
async function commitWithImages(deps: IngestDeps, collectorId: string, unique: readonly ReadyDetection[]): Promise<Map<number, CommitOutcome>> {
  const images = writeImages(deps, unique);
  // Observed below; without this a rejection while the transaction is still running would
  // be reported as unhandled.
  images.catch(() => undefined);
  let statementsMs = 0;
  let commitStarted = 0;
  let outcomes: Map<number, CommitOutcome>;
  try {
    outcomes = await deps.db.pipelinedTransaction(async (tx) => {
      const started = performance.now();
      const staged = await commitDetections(tx, collectorId, unique, deps.clock.now());
      statementsMs = performance.now() - started;
      const locations = await images;
      commitStarted = performance.now();
      // The store statement (already on its way) and the image index travel with the COMMIT,
      // in one round trip: committed with the rest, or nothing is.
      tx.commitWith(Promise.all([staged.written, indexImages(tx, deps.clock.now(), locations)]));
      return staged.outcomes;
    });
  } catch (err) {
    // Not before the image writes settle: they read the request body, which the route
    // hands to the next upload once this returns (body-buffers.ts).
    await images.catch(() => undefined);
    throw err;
  }
  deps.load.observeDbWrite(statementsMs + (performance.now() - commitStarted));
  return outcomes;
}

/**
 * Makes the batch's images durable in the current image segment (one write and one flush
 * for the whole batch, shared with concurrent batches; images/segment-files.ts), and feeds the wall time
 * to the load monitor (the "object storage latency" backpressure trigger). A failure is the
 * server's problem, not the batch's: 503, the appliance keeps the batch and retries.
 */
async function writeImages(deps: IngestDeps, items: readonly ReadyDetection[]): Promise<ImageLocation[]> {
  const images = new Map<string, ReadyImage>();
  for (const item of items) {
    for (const image of [item.fullScene, item.plateCrop]) if (image) images.set(image.sha256, image);
  }
  if (images.size === 0) return [];
  const started = performance.now();
  try {
    return await deps.images.putBatch([...images.values()]);
  } catch (err) {
    deps.log.error({ err }, 'image store write failed');
    throw new HubError('unavailable', 'image store unavailable; retry later');
  } finally {
    deps.load.observeImageWrite(performance.now() - started);
  }
}

function logBatch(deps: IngestDeps, collectorId: string, results: readonly BatchItemResult[]): void {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const rejected = results.filter((r) => r.status === 'rejected');
  const summary = { collector_id: collectorId, stored: count('stored'), duplicate: count('duplicate'), rejected: rejected.length };
  // Rejections are final (the appliance dead-letters them): operators must see why.
  if (rejected.length > 0) deps.log.warn({ ...summary, first_reason: rejected[0]?.reason }, 'batch items rejected');
  else deps.log.debug(summary, 'batch stored');
}
