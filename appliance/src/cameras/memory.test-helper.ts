import { createHash } from 'node:crypto';
import type { CameraLog, CursorStore, DetectionSink, RunnerDeps, SinkItem, SinkStatus } from './ports.ts';
import { realSleep, systemClock } from './ports.ts';

/**
 * In-memory stand-ins for the buffer and the logger, for camera runner tests. The sink
 * behaves like the buffer where the runners can tell: a detection_id seen before is a
 * `duplicate`, and a refused insert throws.
 */

export interface MemorySink extends DetectionSink {
  /** Committed items, first delivery of each detection_id, in order. */
  items: SinkItem[];
  /** Every call, duplicates included. */
  calls: number;
  /** While set, `accept` throws (a full or broken buffer). */
  failing: boolean;
  ids(): string[];
  /** sha256 of the plate crop / full scene of a committed item. */
  imageHash(detectionId: string, kind: 'plate_crop' | 'full_scene'): string | undefined;
  /** Resolves once at least `n` distinct detections are committed or `timeoutMs` passed. */
  waitFor(n: number, timeoutMs?: number): Promise<boolean>;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export function memorySink(): MemorySink {
  const byId = new Map<string, SinkItem>();
  const sink: MemorySink = {
    items: [],
    calls: 0,
    failing: false,
    accept(item): SinkStatus {
      sink.calls += 1;
      if (sink.failing) throw new Error('buffer unavailable');
      if (byId.has(item.detection.detection_id)) return 'duplicate';
      byId.set(item.detection.detection_id, item);
      sink.items.push(item);
      return 'stored';
    },
    seen: (ids) => new Set(ids.filter((id) => byId.has(id))),
    ids: () => sink.items.map((i) => i.detection.detection_id),
    imageHash(id, kind) {
      const bytes = byId.get(id)?.images[kind];
      return bytes ? sha256(bytes) : undefined;
    },
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (byId.size < n) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 10));
      }
      return true;
    },
  };
  return sink;
}

export interface MemoryCursors extends CursorStore {
  values: Map<string, string>;
  sets: number;
}

export function memoryCursors(): MemoryCursors {
  const store: MemoryCursors = {
    values: new Map(),
    sets: 0,
    get: (key) => store.values.get(key) ?? null,
    set(key, value) {
      store.sets += 1;
      store.values.set(key, value);
    },
  };
  return store;
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  obj: Record<string, unknown>;
}

export interface MemoryLog extends CameraLog {
  entries: LogEntry[];
  messages(level: LogEntry['level']): string[];
}

export function memoryLog(): MemoryLog {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: Record<string, unknown>, msg: string) => {
    entries.push({ level, msg, obj });
  };
  return {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: (level) => entries.filter((e) => e.level === level).map((e) => e.msg),
  };
}

/** Real clock and timers, in-memory sink/cursors/log, a fixed "random" (mid-jitter). */
export function memoryDeps(overrides: Partial<RunnerDeps> = {}): RunnerDeps & { sink: MemorySink; cursors: MemoryCursors; log: MemoryLog } {
  return {
    sink: memorySink(),
    cursors: memoryCursors(),
    clock: systemClock,
    random: () => 0.5,
    log: memoryLog(),
    sleep: realSleep,
    ...overrides,
  } as RunnerDeps & { sink: MemorySink; cursors: MemoryCursors; log: MemoryLog };
}

/** Polls `check` every 10 ms until true or `timeoutMs` (a bounded wait, not a timing assertion). */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
