/**
 * What the cameras deliver into the buffer, per minute, over the last 24 h: image bytes and
 * metadata bytes of every committed detection. In memory (a restart starts over): it only
 * feeds the disk-cap forecast, which needs the current rate, not history. 1,440 buckets.
 */
const MINUTE = 60_000;
const BUCKETS = 24 * 60;
/** Below this much observation a daily rate would be a guess: the forecast says "not yet". */
export const MIN_OBSERVATION_MS = 10 * MINUTE;

export interface IntakeRate {
  /** Bytes per day at the rate seen, null while observed for less than 10 minutes. */
  imageBytesPerDay: number | null;
  metadataBytesPerDay: number | null;
  detectionsPerDay: number | null;
  observedMs: number;
}

export interface IntakeMeter {
  record(imageBytes: number, metadataBytes: number): void;
  rate(): IntakeRate;
}

export function createIntakeMeter(nowMs: () => number): IntakeMeter {
  const since = nowMs();
  const buckets = new Map<number, { images: number; metadata: number; count: number }>();
  const prune = (minute: number): void => {
    for (const key of buckets.keys()) if (key <= minute - BUCKETS) buckets.delete(key);
  };
  return {
    record(imageBytes, metadataBytes) {
      const minute = Math.floor(nowMs() / MINUTE);
      const b = buckets.get(minute) ?? { images: 0, metadata: 0, count: 0 };
      b.images += imageBytes;
      b.metadata += metadataBytes;
      b.count += 1;
      buckets.set(minute, b);
      if (buckets.size > BUCKETS) prune(minute);
    },
    rate() {
      const now = nowMs();
      prune(Math.floor(now / MINUTE));
      const observedMs = Math.min(now - since, BUCKETS * MINUTE);
      if (observedMs < MIN_OBSERVATION_MS) return { imageBytesPerDay: null, metadataBytesPerDay: null, detectionsPerDay: null, observedMs };
      let images = 0;
      let metadata = 0;
      let count = 0;
      for (const b of buckets.values()) {
        images += b.images;
        metadata += b.metadata;
        count += b.count;
      }
      const perDay = (v: number): number => (v * 86_400_000) / observedMs;
      return { imageBytesPerDay: perDay(images), metadataBytesPerDay: perDay(metadata), detectionsPerDay: perDay(count), observedMs };
    },
  };
}
