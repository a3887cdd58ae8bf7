import type { BatchItemResult, BatchResponse } from '@alpr/shared/protocol/batch';
import type { HubDeps } from '../deps.ts';
import { HubError } from '../errors.ts';
import { decideBackpressure } from './backpressure.ts';
import { prepareItems, type ReadyDetection, type ReadyImage } from './batch-items.ts';
import type { QueueDepthRefresher } from './queue-depth.ts';
import { commitDetections, type CommitOutcome } from './store-transaction.ts';

/** What the ingest verbs need: the hub's deps plus the shared queue-depth refresher. */
export type IngestDeps = Pick<HubDeps, 'db' | 'images' | 'load' | 'clock' | 'log'> & {
  queueDepth: QueueDepthRefresher;
};

export interface BatchInput {
  collectorId: string;
  /** The uploaded `detections` array, unvalidated. */
  items: readonly unknown[];
  /** Image bytes by part name. */
  parts: ReadonlyMap<string, Uint8Array>;
}

/** Parallel image writes: enough to overlap fsyncs, few enough not to flood the disk queue. */
const IMAGE_WRITE_CONCURRENCY = 8;

/**
 * Stores one batch (spec "End-to-end behavior" 5; docs/ingest.md): validates each item
 * (a bad one is `rejected`, the others proceed), writes the images (content-addressed,
 * before the transaction: an image orphaned by a failed transaction is harmless and is
 * simply found present on the retry), then commits metadata, idempotency keys, hash chain,
 * alert-queue rows and the NOTIFY in one transaction. Returns the per-item results and,
 * when the hub is loaded, a `backpressure` object (the route answers 202 then).
 */
export async function storeBatch(deps: IngestDeps, input: BatchInput): Promise<BatchResponse> {
  deps.queueDepth.maybeRefresh();
  const verdicts = prepareItems(input.items, input.parts);

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

  await writeImages(deps, unique);
  const started = performance.now();
  const outcomes = unique.length === 0
    ? new Map<number, CommitOutcome>()
    : await deps.db.transaction((tx) => commitDetections(tx, input.collectorId, unique));
  if (unique.length > 0) deps.load.observeDbWrite(performance.now() - started);

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
  const backpressure = decideBackpressure(deps.load.measurements());
  if (backpressure) response.backpressure = backpressure;
  return response;
}

/**
 * Writes each distinct image once, a few at a time, and feeds the wall time of the whole
 * step to the load monitor (the "object storage latency" backpressure trigger). A failure
 * is the server's problem, not the batch's: 503, the appliance keeps the batch and retries.
 */
async function writeImages(deps: IngestDeps, items: readonly ReadyDetection[]): Promise<void> {
  const images = new Map<string, ReadyImage>();
  for (const item of items) {
    for (const image of [item.fullScene, item.plateCrop]) if (image) images.set(image.sha256, image);
  }
  if (images.size === 0) return;
  const queue = [...images.values()];
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let image = queue.pop(); image; image = queue.pop()) {
      await deps.images.put(image.bytes, image.sha256);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(IMAGE_WRITE_CONCURRENCY, queue.length) }, worker));
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
