import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { nextChainLink } from '../db/chain.ts';
import { chainDetections, type ChainedFields } from '../db/hash-chain.ts';
import type { StatementSession } from '../db/session.ts';
import type { ReadyDetection } from './batch-items.ts';
import { claimKeys, contextQuery, existingKeys, GENERIC_PLANS, storeDetections, type DetectionRow, type Statement } from './batch-sql.ts';

export interface CommitOutcome {
  status: 'stored' | 'duplicate';
  /** The hub's record id (detections.id) as a string. */
  id: string;
}

/** What commitDetections sent: each item's outcome, once `written` is committed. */
export interface StagedDetections {
  outcomes: Map<number, CommitOutcome>;
  /**
   * The store statement, sent and not waited for: the caller hands it to the transaction's
   * COMMIT (`commitWith`), with which it travels. It checks its own result (batch-sql.ts
   * storeDetections), so a wrong one fails and the COMMIT rolls everything back.
   */
  written: Promise<unknown>;
}

/** batch-sql.ts texts never vary with the batch, so each is prepared once per connection. */
const run = <T extends Record<string, unknown>>(tx: StatementSession, s: Statement) => tx.sql<T>(s.text, s.params, { prepare: true });

/**
 * Everything a batch writes, in ONE transaction (docs/ingest.md, "Transaction"), in two
 * round trips (three when the batch repeats stored detections); in a pipelined transaction
 * (store-batch.ts) BEGIN travels with the first and COMMIT with the last:
 *   1. sent together, run by the database in this order: generic plans for the rest of the
 *      transaction (batch-sql.ts GENERIC_PLANS); lock the collector's chain head
 *      (first, so two batches of one collector serialize before either claims a key: no
 *      lock-order deadlock on shared detection ids); the collector's position + registered
 *      cameras of the batch's MACs; the idempotency keys claimed (ON CONFLICT DO NOTHING
 *      RETURNING: new -> stored, conflict -> duplicate with the id stored earlier);
 *   2. one statement (batch-sql.ts storeDetections): the new detections chained in batch
 *      order, an alert check per detection, the chain head advanced, pg_notify('detections')
 *      (delivered on commit only).
 * `items` must have distinct detection ids (the caller folds in-batch repeats).
 */
export async function commitDetections(
  tx: StatementSession,
  collectorId: string,
  items: readonly ReadyDetection[],
  receivedAt: Date,
): Promise<StagedDetections> {
  const outcomes = new Map<number, CommitOutcome>();
  const nothingToWrite = { outcomes, written: Promise.resolve() };
  if (items.length === 0) return nothingToWrite;
  const macs = [...new Set(items.map((i) => i.detection.camera.mac))];
  // All four sent before any answer is read: postgres.js pipelines them on the
  // transaction's connection (PGlite runs them one after the other). The database runs them
  // in the order sent, so the head lock is held before a key is claimed, as if awaited
  // first; a failed lock aborts the transaction and the statements behind it fail.
  const [, link, [context], claimed] = await Promise.all([
    run(tx, GENERIC_PLANS),
    nextChainLink(tx, collectorId),
    run<{ latitude: string | null; longitude: string | null; cameras: Record<string, string> | string }>(tx, contextQuery(collectorId, macs)),
    run<{ detection_id: string; detection_pk: string }>(
      tx,
      claimKeys(
        collectorId,
        items.map((i) => ({ detectionId: i.detection.detection_id, capturedAt: i.capturedAt })),
      ),
    ),
  ]);
  if (!context) throw new Error(`collector ${collectorId} vanished during ingest`);
  const cameras = typeof context.cameras === 'string' ? (JSON.parse(context.cameras) as Record<string, string>) : context.cameras;

  const newIds = new Map(claimed.map((r) => [r.detection_id, String(r.detection_pk)]));
  const repeated = items.filter((i) => !newIds.has(i.detection.detection_id)).map((i) => i.detection.detection_id);
  if (repeated.length > 0) {
    const existing = await run<{ detection_id: string; detection_pk: string }>(tx, existingKeys(collectorId, repeated));
    const byId = new Map(existing.map((r) => [r.detection_id, String(r.detection_pk)]));
    for (const item of items) {
      const id = byId.get(item.detection.detection_id);
      if (id !== undefined) outcomes.set(item.index, { status: 'duplicate', id });
    }
  }

  const fresh = items.filter((i) => newIds.has(i.detection.detection_id));
  if (fresh.length === 0) return nothingToWrite;
  const fields = fresh.map((item) => chainedFields(collectorId, item, cameras[item.detection.camera.mac]));
  const { records, next } = chainDetections(link, fields);
  const rows: DetectionRow[] = fresh.map((item, i) => {
    const f = fields[i];
    const record = records[i];
    const id = newIds.get(item.detection.detection_id);
    if (!f || !record || id === undefined) throw new Error('chain records out of step with the batch');
    const vehicle = item.detection.vehicle;
    return {
      id,
      cameraId: f.cameraId,
      detectionId: f.detectionId,
      plateNumber: f.plateNumber,
      plateNormalized: f.plateNormalized,
      confidence: f.confidence,
      capturedAt: f.capturedAt,
      direction: f.direction,
      vehicleType: vehicle?.vehicle_type ?? null,
      color: vehicle?.color ?? null,
      brand: vehicle?.brand ?? null,
      model: vehicle?.model ?? null,
      region: item.detection.plate.region ?? null,
      fullImageHash: f.fullImageHash,
      cropImageHash: f.cropImageHash,
      fullImageSize: item.fullScene?.size ?? null,
      cropImageSize: item.plateCrop?.size ?? null,
      chainSeq: record.chainSeq,
      prevHash: record.prevHash,
      recordHash: record.recordHash,
      attributes: item.detection.attributes ?? null,
      plateCandidates: otherCandidates(item.detection.plate),
    };
  });
  const position = { latitude: context.latitude, longitude: context.longitude };
  const written = run(tx, storeDetections(collectorId, position, rows, next, receivedAt));
  // Observed by the caller's COMMIT; without this a failure would also be reported as unhandled.
  written.catch(() => undefined);
  const ids = rows.map((r) => r.id);
  for (const [i, item] of fresh.entries()) outcomes.set(item.index, { status: 'stored', id: ids[i] ?? '' });
  return { outcomes, written };
}

/**
 * The hash-chained columns of one detection. camera_id is the registered camera's uuid
 * when the collector's cameras table knows the MAC, otherwise the appliance's camera id as
 * sent (the column is text for that reason, see 0004_detections.sql).
 */
function chainedFields(collectorId: string, item: ReadyDetection, registeredCamera: string | undefined): ChainedFields {
  const d = item.detection;
  return {
    collectorId,
    detectionId: d.detection_id,
    cameraId: registeredCamera ?? d.camera.id,
    plateNumber: d.plate.text,
    plateNormalized: ocrNormalize(d.plate.text),
    confidence: d.plate.confidence,
    capturedAt: item.capturedAt,
    direction: d.vehicle?.direction ?? 'unknown',
    fullImageHash: item.fullScene?.sha256 ?? null,
    cropImageHash: item.plateCrop?.sha256 ?? null,
  };
}

/**
 * The candidates other than the read itself (a camera often lists its best reading first),
 * or null when none is left: the alert page shows what else the camera thought it read.
 */
function otherCandidates(plate: { text: string; candidates?: Array<{ text: string; confidence?: number | undefined }> | undefined }) {
  const others = (plate.candidates ?? []).filter((c) => c.text !== plate.text);
  return others.length > 0 ? others : null;
}
