/**
 * Health alert kinds and every threshold, with its number (docs/health.md says the same in
 * words). Pure constants: the rules (rules.ts, usual.ts) read them, tests name them.
 */
export const HEALTH_ALERT_KINDS = [
  'camera_quiet',
  'camera_slow',
  'camera_offline',
  'camera_clock',
  'cursor_stuck',
  'collector_silent',
  'load_events_per_minute',
  'load_batch_size',
  'load_request_size',
  'load_error_rate',
  'search_keys_behind',
] as const;
export type HealthAlertKind = (typeof HEALTH_ALERT_KINDS)[number];

/** Kinds about one camera (camera_id set); the others are about the whole collector, but HUB_KINDS. */
export const CAMERA_KINDS: ReadonlySet<HealthAlertKind> = new Set(['camera_quiet', 'camera_slow', 'camera_offline', 'camera_clock', 'cursor_stuck']);
/** Kinds about the hub itself: no collector and no camera (migration 0039). */
export const HUB_KINDS: ReadonlySet<HealthAlertKind> = new Set(['search_keys_behind']);

const HOUR_MS = 3_600_000;
export const WEEK_MS = 168 * HOUR_MS;

export const USUAL = {
  /** The usual rate of an hour is the median of the same hour of the week over this many past weeks. */
  weeks: 4,
  /** Fewer weeks of history than this (since the camera's first read): no usual rate, no quiet or slow alert. */
  minWeeks: 2,
} as const;

export const QUIET = {
  /** No read for at least this long... */
  minSilentMs: 60 * 60_000,
  /** ...while the usual rate says at least this many reads would have come meanwhile (chance of 0 by luck: e^-10). */
  minExpectedReads: 10,
  /** The silent span counted toward the expectation stops this far back. */
  maxSpanMs: 6 * HOUR_MS,
} as const;

export const SLOW = {
  /** The window compared: the last 3 hours (the current hour pro rata). */
  windowHours: 3,
  /** No opinion below this many expected reads in the window. */
  minExpectedReads: 20,
  /** Opens below 25 % of usual... */
  openBelow: 0.25,
  /** ...closes at 50 % or more (hysteresis: a camera hovering near 25 % does not flap). */
  closeAtOrAbove: 0.5,
} as const;

export const CAMERA_OFFLINE = {
  /** The appliance says OFFLINE and the camera last answered at least this long ago. */
  minOfflineMs: 5 * 60_000,
} as const;

export const CURSOR = {
  /** An online pulled camera whose cursor has not moved for this long. */
  stuckAfterSeconds: 30 * 60,
} as const;

export const LOAD = {
  /** Events, batch and request size: the worst minute of the last 10 (so it closes after 10 calm minutes). */
  windowMinutes: 10,
  maxEventsPerMinute: 500,
  maxBatchItems: 100,
  /** 10 MB (MiB): below the hub's 12 MiB batch cap, so such a request is stored and counted. */
  maxRequestBytes: 10 * 1024 * 1024,
  /** Error rate: over the last 15 minutes... */
  errorWindowMinutes: 15,
  /** ...with at least this many items or failed requests (fewer says nothing)... */
  errorMinVolume: 100,
  /** ...opens above 5 %, closes at 2.5 % or below. */
  errorOpenAbove: 0.05,
  errorCloseAtOrBelow: 0.025,
} as const;

export const SEARCH_KEYS = {
  /**
   * The key builder is behind when the oldest read without search keys has waited this long.
   * It keeps up within a second or two at 1,500 reads a second (docs/performance.md); a minute
   * means it is stopped, failing or outpaced. Searches stay exact meanwhile (docs/search.md
   * "Keys built after commit"), but each reads the unkeyed reads from `detections`, which
   * grows with the lag.
   */
  lagAlertSeconds: 60,
  /** The alert closes once the lag is back to this or less (hysteresis: a lag hovering near a minute does not flap). */
  closeAtOrBelowSeconds: 10,
  /** /healthz reads the lag at most this often: it answers anyone, and the read is bounded only by the lag. */
  healthzCacheMs: 5_000,
} as const;

/** How often the evaluator looks (start-workers.ts). */
export const EVALUATE_EVERY_MS = 60_000;

/** Kept: reads per hour 5 weeks (4 for the median + the current), load minutes 1 day. */
export const KEEP_READ_HOURS_MS = 5 * WEEK_MS;
export const KEEP_LOAD_MINUTES_MS = 24 * HOUR_MS;
