/**
 * At most one computation a minute, shared by every caller (docs/transparency.md "Load"):
 * a public page must not let anyone make the database count a year of reads on demand. A
 * caller arriving while a computation runs waits for that one instead of starting another.
 */
export const ACCOUNT_TTL_MS = 60_000;

export interface OncePerInterval<T> {
  get(now: Date): Promise<T>;
}

export function oncePerInterval<T>(compute: (now: Date) => Promise<T>, ttlMs = ACCOUNT_TTL_MS): OncePerInterval<T> {
  let kept: { at: number; value: T } | undefined;
  let running: Promise<T> | undefined;
  return {
    get(now) {
      if (kept && now.getTime() - kept.at < ttlMs && now.getTime() >= kept.at) return Promise.resolve(kept.value);
      running ??= compute(now)
        .then((value) => {
          kept = { at: now.getTime(), value };
          return value;
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}
