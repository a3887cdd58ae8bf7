import { createHash } from 'node:crypto';

/** prev_hash of the first record of every collector. */
export const GENESIS_HASH = '0'.repeat(64);

/** The detection fields the hash chain covers (camelCase twins of the detections columns). */
export interface ChainedFields {
  collectorId: string;
  detectionId: string;
  cameraId: string;
  plateNumber: string;
  plateNormalized: string;
  confidence: number;
  capturedAt: Date;
  direction: string;
  fullImageHash: string | null;
  cropImageHash: string | null;
}

/**
 * Canonical serialization (version 1), documented in docs/database.md. A JSON array, in
 * this order, of strings or null:
 *   collector_id (lowercase uuid), detection_id, camera_id, plate_number, plate_normalized,
 *   confidence (4 decimals, e.g. "0.9000"), captured_at (ISO-8601 UTC with milliseconds),
 *   direction, full_image_hash, crop_image_hash, chain_seq (decimal).
 * JSON escaping makes it unambiguous whatever characters an id holds; fixed decimals keep
 * it independent of how a driver prints a double.
 */
export function canonicalDetectionFields(row: ChainedFields & { chainSeq: number | string }): string {
  if (!Number.isFinite(row.confidence)) throw new RangeError('confidence must be a finite number');
  if (Number.isNaN(row.capturedAt.getTime())) throw new RangeError('capturedAt is an invalid date');
  return JSON.stringify([
    row.collectorId.toLowerCase(),
    row.detectionId,
    row.cameraId,
    row.plateNumber,
    row.plateNormalized,
    row.confidence.toFixed(4),
    row.capturedAt.toISOString(),
    row.direction,
    row.fullImageHash,
    row.cropImageHash,
    String(row.chainSeq),
  ]);
}

/** record_hash = SHA-256 hex of (prev record_hash || canonical fields), UTF-8. */
export function computeRecordHash(prevHash: string, canonicalFields: string): string {
  return createHash('sha256').update(prevHash, 'utf8').update(canonicalFields, 'utf8').digest('hex');
}

/** The next free position of a collector's chain. */
export interface ChainLink {
  collectorId: string;
  chainSeq: number;
  prevHash: string;
}

export interface ChainedRecord {
  chainSeq: number;
  prevHash: string;
  recordHash: string;
}

/**
 * Chains `rows` (in the order given) onto `link`. Pure: returns the chain columns for each
 * row and the link after the last one, to hand to advanceChainHead.
 */
export function chainDetections(link: ChainLink, rows: readonly ChainedFields[]): { records: ChainedRecord[]; next: ChainLink } {
  let chainSeq = link.chainSeq;
  let prevHash = link.prevHash;
  const records: ChainedRecord[] = [];
  for (const row of rows) {
    if (row.collectorId.toLowerCase() !== link.collectorId.toLowerCase()) {
      throw new Error(`row of collector ${row.collectorId} cannot join the chain of ${link.collectorId}`);
    }
    const recordHash = computeRecordHash(prevHash, canonicalDetectionFields({ ...row, chainSeq }));
    records.push({ chainSeq, prevHash, recordHash });
    prevHash = recordHash;
    chainSeq += 1;
  }
  return { records, next: { collectorId: link.collectorId, chainSeq, prevHash } };
}
