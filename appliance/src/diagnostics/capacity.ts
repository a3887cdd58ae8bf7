import type { IntakeRate } from './intake-rate.ts';

/**
 * How long the disk cap holds the buffer at the current intake rate (issue 10 §4). The cap
 * evicts images first, so two horizons: days of full detections (images + metadata) and
 * days of metadata alone once images are gone. Pure.
 *
 * Metadata on disk costs more than its JSON (indexes, dedupe memory, page slack): when the
 * buffer holds at least 50 rows, the measured ratio of database bytes to payload bytes
 * (images excluded) scales the metadata rate; otherwise the payload size is used as is.
 */
export const WARN_BELOW_DAYS = 7;

export interface CapacityInput {
  capBytes: number;
  rate: IntakeRate;
  /** From bufferStats: rows, their payload+image bytes, image bytes, database bytes in use. */
  rows: number;
  bufferedBytes: number;
  imageBytes: number;
  databaseUsedBytes: number;
}

export interface Capacity {
  cap_bytes: number;
  /** null: no rate yet (under 10 minutes of observation) or nothing arrives. */
  days_of_images: number | null;
  days_of_metadata: number | null;
  metadata_overhead: number;
  warning: string | null;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

export function capacityOf(input: CapacityInput): Capacity {
  const payload = input.bufferedBytes - input.imageBytes;
  const overhead = input.rows >= 50 && payload > 0 ? Math.max(1, (input.databaseUsedBytes - input.imageBytes) / payload) : 1;
  const { imageBytesPerDay, metadataBytesPerDay } = input.rate;
  const meta = metadataBytesPerDay === null ? null : metadataBytesPerDay * overhead;
  const full = meta === null || imageBytesPerDay === null ? null : meta + imageBytesPerDay;
  const days = (perDay: number | null): number | null => (perDay === null || perDay <= 0 ? null : round1(input.capBytes / perDay));
  const daysOfImages = days(full);
  const daysOfMetadata = days(meta);
  const warning =
    daysOfImages !== null && daysOfImages < WARN_BELOW_DAYS
      ? `the buffer disk cap (${(input.capBytes / 1024 ** 3).toFixed(1)} GiB) holds ${daysOfImages} days of images at the current rate, under ${WARN_BELOW_DAYS}: an outage longer than that loses images (oldest first); raise buffer.disk_cap_bytes or add storage`
      : null;
  return { cap_bytes: input.capBytes, days_of_images: daysOfImages, days_of_metadata: daysOfMetadata, metadata_overhead: round1(overhead), warning };
}
