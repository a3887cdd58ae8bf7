import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { eq, sql } from 'drizzle-orm';
import * as schema from './schema/index.ts';
import { migrate } from './migrate.ts';
import { DEFAULT_LIMITS, type BufferLimits, type BufferLog, type Clock, type DetectionBuffer, type SynchronousMode } from './types.ts';

export interface OpenBufferOptions {
  file: string;
  clock: Clock;
  log: BufferLog;
  limits?: Partial<BufferLimits>;
  /** Default FULL: docs/buffer.md "Durability" has the measurements behind it. */
  synchronous?: SynchronousMode;
  /**
   * A diagnostics reader beside the owning process: no migrations, no recovery, no writes.
   * Only one process may own (open read-write) a buffer file.
   */
  readonly?: boolean;
}

/**
 * 5 s: in WAL readers never block the writer; this only waits out another writer's
 * transaction (a retention pass) or a checkpoint, both well under a second here.
 */
const BUSY_TIMEOUT_MS = 5000;
/** Keep the WAL file from staying large after a burst (it is reused, then truncated to this). */
const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The memory horizons follow the retention unless set: reads captured longer ago than the
 * buffer keeps data are refused, and reads are remembered one day longer than that (camera
 * clocks running ahead of ours). docs/buffer.md "Time horizons".
 */
export function limitsFrom(given: Partial<BufferLimits> = {}): BufferLimits {
  const retentionMs = given.retentionMs ?? DEFAULT_LIMITS.retentionMs;
  const maxCaptureAgeMs = given.maxCaptureAgeMs ?? retentionMs;
  const recentReadsKeepMs = given.recentReadsKeepMs ?? maxCaptureAgeMs + (DEFAULT_LIMITS.recentReadsKeepMs - DEFAULT_LIMITS.maxCaptureAgeMs);
  return { ...DEFAULT_LIMITS, ...given, retentionMs, maxCaptureAgeMs, recentReadsKeepMs };
}

export function openBuffer(options: OpenBufferOptions): DetectionBuffer {
  const readonly = options.readonly ?? false;
  const synchronous = options.synchronous ?? 'FULL';
  const limits = limitsFrom(options.limits);
  const sqlite = new BetterSqlite3(options.file, readonly ? { readonly: true, fileMustExist: true } : {});
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!readonly) {
      // Must precede the first CREATE TABLE; on an existing file it is only read back.
      sqlite.pragma('auto_vacuum = INCREMENTAL');
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
    }
    sqlite.pragma(`synchronous = ${synchronous}`);
    sqlite.pragma('foreign_keys = ON');
    if (readonly) sqlite.pragma('query_only = ON');
    else migrate(sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }

  const buffer: DetectionBuffer = {
    file: options.file,
    sqlite,
    db: drizzle(sqlite, { schema }),
    clock: options.clock,
    log: options.log,
    limits,
    synchronous,
    readonly,
    lastRecentPurgeMs: 0,
  };
  if (!readonly) {
    checkAutoVacuum(buffer);
    recoverInFlight(buffer);
  }
  return buffer;
}

export function closeBuffer(buffer: DetectionBuffer): void {
  if (buffer.sqlite.open) buffer.sqlite.close();
}

/**
 * Rows left `in_flight` by a process that died mid-upload go back to `pending`: the hub
 * dedupes on detection_id, so sending them again is harmless, and not sending them loses them.
 */
function recoverInFlight(buffer: DetectionBuffer): void {
  const result = buffer.db
    .update(schema.detections)
    // attempts + 1: the hub may hold these rows, so a better read must not replace them
    // under another id (dedupe checks attempts, docs/buffer.md "Dedupe").
    .set({ uploadState: 'pending', attempts: sql`${schema.detections.attempts} + 1`, lastError: 'appliance restarted mid-upload' })
    .where(eq(schema.detections.uploadState, 'in_flight'))
    .run();
  if (result.changes > 0) buffer.log.warn({ rows: result.changes }, 'buffer: in-flight detections returned to pending after restart');
}

/** 2 = INCREMENTAL. A file created elsewhere without it still works; space just is not returned. */
function checkAutoVacuum(buffer: DetectionBuffer): void {
  const mode = buffer.sqlite.pragma('auto_vacuum', { simple: true });
  if (mode !== 2) buffer.log.warn({ auto_vacuum: mode, file: buffer.file }, 'buffer: auto_vacuum is not INCREMENTAL; evicted space stays in the file');
}
