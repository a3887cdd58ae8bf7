import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Detection, DetectionImages } from '@alpr/shared/detection/schema';
import { openBuffer, closeBuffer, type OpenBufferOptions } from './open.ts';
import type { BufferLog, Clock, DetectionBuffer } from './types.ts';

/** Test support (not a test): temp folders, a movable clock, sample detections. */

export interface FakeClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(startMs = Date.parse('2025-06-01T12:00:00.000Z')): FakeClock {
  let nowMs = startMs;
  return {
    now: () => new Date(nowMs),
    set: (ms) => {
      nowMs = ms;
    },
    advance: (ms) => {
      nowMs += ms;
    },
  };
}

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export function memoryLog(): BufferLog & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}

/** A fresh folder removed when the test ends (`t.teardown`). */
export function tempDir(teardown: (fn: () => void) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'alpr-buffer-'));
  teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function openTestBuffer(
  teardown: (fn: () => void) => void,
  options: Partial<OpenBufferOptions> = {},
): DetectionBuffer & { clock: FakeClock; file: string } {
  const file = options.file ?? join(tempDir(teardown), 'buffer.db');
  const clock = fakeClock();
  const buffer = openBuffer({ file, clock, log: memoryLog(), ...options });
  teardown(() => closeBuffer(buffer));
  return buffer as DetectionBuffer & { clock: FakeClock; file: string };
}

export interface SampleOptions {
  id?: string;
  mac?: string;
  cameraId?: string;
  plate?: string;
  confidence?: number;
  atMs?: number;
}

export function sampleDetection(o: SampleOptions = {}): Detection {
  return {
    detection_id: o.id ?? randomUUID(),
    timestamp: new Date(o.atMs ?? Date.parse('2025-06-01T12:00:00.000Z')).toISOString(),
    camera: { id: o.cameraId ?? 'cam-gate', mac: o.mac ?? 'a1b2c3d4e5f6' },
    plate: { text: o.plate ?? 'AB123CD', confidence: o.confidence ?? 0.9, region: 'EU' },
    vehicle: { direction: 'entering', vehicle_type: 'car', color: 'blue' },
  };
}

/** Random bytes sized like real JPEGs: plate crop ~20 KB, full scene ~65 KB (typical camera sizes). */
export function sampleImages(cropBytes = 20 * 1024, sceneBytes = 65 * 1024): DetectionImages {
  return { plate_crop: randomBytes(cropBytes), full_scene: randomBytes(sceneBytes) };
}

const COUNTABLE = ['detections', 'images', 'recent_reads', 'cursors', 'counters', 'rejected'] as const;

/** Row count of one buffer table, straight from SQLite. */
export function countRows(buffer: DetectionBuffer, table: (typeof COUNTABLE)[number]): number {
  const row: unknown = buffer.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get();
  return typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number' ? row.n : -1;
}
