import { closeSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The service's own log on the device: a file under the data folder (not journald), so a
 * remote wipe, which deletes `logs/`, leaves no trace of what the appliance saw
 * (docs/appliance-lifecycle.md "Logs"). Capped: at most two generations of `maxBytes`
 * (the live file and `.1`), so a chatty failure cannot fill the partition the buffer lives on.
 */
export const LOGS_DIR = 'logs';
export const LOG_FILE_NAME = 'appliance.log';
/** 10 MiB x 2: weeks of info-level lines at a normal site, under 1 % of the smallest card. */
export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;

export function logFileOf(dataDir: string): string {
  return join(dataDir, LOGS_DIR, LOG_FILE_NAME);
}

export interface CappedLogFile {
  readonly path: string;
  /** pino's destination contract: one or more whole lines. Never throws. */
  write(chunk: string): boolean;
  /** Lines lost because the disk refused them (full, read-only); shown by nobody yet, kept for tests. */
  readonly dropped: number;
  close(): void;
}

/** Pure: does appending `incoming` bytes to a file of `size` go over the cap? An empty file takes any line. */
export function needsRotation(size: number, incoming: number, maxBytes: number): boolean {
  return size > 0 && size + incoming > maxBytes;
}

/**
 * Synchronous appends (a log line must be on disk before a crash that follows it, and
 * the appliance logs a few lines a minute). A failed write is counted, never thrown: a
 * full disk must not stop the appliance from buffering reads.
 */
export function openCappedLogFile(path: string, maxBytes: number = DEFAULT_LOG_MAX_BYTES): CappedLogFile {
  let fd: number | undefined;
  let size = 0;
  let dropped = 0;
  const open = (): void => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    fd = openSync(path, 'a', 0o600);
    size = fstatSync(fd).size;
  };
  const closeFd = (): void => {
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // Already gone: nothing to flush (writes are synchronous).
    }
    fd = undefined;
  };
  const rotate = (): void => {
    closeFd();
    try {
      renameSync(path, `${path}.1`);
    } catch {
      // The live file vanished (a wipe deleted logs/): start a fresh one.
    }
    open();
  };
  open();
  return {
    path,
    get dropped() {
      return dropped;
    },
    write(chunk: string): boolean {
      const bytes = Buffer.byteLength(chunk);
      try {
        if (fd === undefined) open();
        else if (needsRotation(size, bytes, maxBytes)) rotate();
        writeSync(fd as number, chunk);
        size += bytes;
      } catch {
        dropped += 1;
        closeFd();
      }
      return true;
    },
    close: closeFd,
  };
}
