/**
 * A push camera's clock, estimated from its reads (docs/cameras.md "Camera clocks"). Pure.
 * A push camera has no clock API the appliance calls, so its offset comes from capture time
 * against arrival time. One sample is not enough: a camera that comes back from its own
 * network outage re-sends stored reads with old capture times and a correct clock. So:
 *   - a capture time over a minute in the future is impossible: the clock is ahead by at
 *     least that much, known from one read;
 *   - otherwise the offset is the median of the last reads, believed only when they agree
 *     (10th to 90th percentile within a minute): fresh reads of a wrong clock agree; a
 *     re-sent backlog spreads over the hours of the outage and changes nothing.
 */
export const PUSH_CLOCK_WINDOW = 21;
const MIN_SAMPLES = 5;
const MAX_SPREAD_MS = 60_000;
const FUTURE_MS = 60_000;

export interface PushClock {
  /** Adds one read; returns the offset now believed (camera minus true time), or null. */
  observe(captureMs: number, arrivalMs: number): number | null;
  current(): number | null;
  /** The offset believed before the last change (a clock corrected while running). */
  previous(): number | null;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] as number;

export function createPushClock(): PushClock {
  const samples: number[] = [];
  let current: number | null = null;
  let previous: number | null = null;
  const adopt = (offset: number): void => {
    if (current !== null && Math.abs(offset - current) <= 2_000) return;
    previous = current;
    current = offset;
  };
  return {
    observe(captureMs, arrivalMs) {
      const sample = captureMs - arrivalMs;
      samples.push(sample);
      if (samples.length > PUSH_CLOCK_WINDOW) samples.shift();
      if (sample > FUTURE_MS && (current === null || sample > current + 2_000)) {
        // Fresh reads of a clock ahead: the one just arrived is the best bound we have.
        adopt(sample);
        return current;
      }
      if (samples.length >= MIN_SAMPLES) {
        const sorted = [...samples].sort((a, b) => a - b);
        if (quantile(sorted, 0.9) - quantile(sorted, 0.1) <= MAX_SPREAD_MS) adopt(quantile(sorted, 0.5));
      }
      return current;
    },
    current: () => current,
    previous: () => previous,
  };
}
