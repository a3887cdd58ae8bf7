import type { Database, RunResult } from 'better-sqlite3';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as schema from './schema/index.ts';

/** Injected wherever behaviour depends on time (dedupe window, retention), as in the hub. */
export interface Clock {
  now(): Date;
}

/** The part of a pino logger the buffer uses; a pino `Logger` satisfies it. */
export interface BufferLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** docs/buffer.md "Durability" explains the default. */
export const SYNCHRONOUS_MODES = ['NORMAL', 'FULL'] as const;
export type SynchronousMode = (typeof SYNCHRONOUS_MODES)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

export interface BufferLimits {
  /** docs/buffer.md: 7 days, measured from when the appliance received it. */
  retentionMs: number;
  /** Live database pages (free pages excluded) above this evict images, then rows. */
  diskCapBytes: number;
  /** docs/buffer.md: 30 s around the capture time, per camera MAC + plate. */
  dedupeWindowMs: number;
  /**
   * How long every read is remembered (its id, and for a kept read its MAC, plate, capture
   * time and the id the hub got), by arrival time. Must exceed `maxCaptureAgeMs` plus the
   * worst camera clock lead: docs/buffer.md "Time horizons".
   */
  recentReadsKeepMs: number;
  /** A read captured longer ago than this is refused (counted), never stored. */
  maxCaptureAgeMs: number;
  /** Dead-letter (hub-rejected) items are kept this long for diagnostics. */
  rejectedKeepMs: number;
}

export const DEFAULT_LIMITS: BufferLimits = {
  retentionMs: 7 * DAY_MS,
  diskCapBytes: 2 * 1024 * 1024 * 1024,
  dedupeWindowMs: 30_000,
  // 8 days: cameras re-send stored reads hours or days later (a push camera after its own
  // outage, a pull camera appending old copies to its pages). Any copy is either still
  // remembered or captured more than 7 days ago and refused; the 1 day between the two
  // covers a camera clock running up to a day ahead of ours.
  recentReadsKeepMs: 8 * DAY_MS,
  maxCaptureAgeMs: 7 * DAY_MS,
  rejectedKeepMs: 7 * DAY_MS,
};

/** Full schema object for drizzle; the tables live one per file in `schema/`. */
export type BufferSchema = typeof schema;

/** The database handle or a transaction on it: helpers accept both. */
export type BufferDb = BaseSQLiteDatabase<'sync', RunResult, BufferSchema>;

export interface DetectionBuffer {
  readonly file: string;
  readonly sqlite: Database;
  readonly db: BufferDb;
  readonly clock: Clock;
  readonly log: BufferLog;
  readonly limits: BufferLimits;
  readonly synchronous: SynchronousMode;
  readonly readonly: boolean;
  /** Arrival time of the last `recent_reads` purge; purges run at most every few seconds. */
  lastRecentPurgeMs: number;
}
