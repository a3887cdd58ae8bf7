import type { Clock, TimerHandle, Timers } from './ports.ts';

/**
 * A clock and timers that only move when the test says so. `advance` fires due timers in
 * time order (each sees the clock at its due time), so a test can skip a 60 s backoff in
 * no wall time at all.
 */
export class ManualTime implements Clock, Timers {
  private nowMs: number;
  private nextId = 1;
  private readonly pending = new Map<number, { atMs: number; fn: () => void }>();

  constructor(startMs = Date.UTC(2025, 0, 1)) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.pending.set(id, { atMs: this.nowMs + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'number') this.pending.delete(handle);
  }

  /** Due time of the earliest pending timer, or undefined. */
  nextDueMs(): number | undefined {
    let next: number | undefined;
    for (const { atMs } of this.pending.values()) next = next === undefined ? atMs : Math.min(next, atMs);
    return next;
  }

  /** Number of pending timers (the uplink keeps at most one). */
  pendingCount(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      let dueId: number | undefined;
      let due: { atMs: number; fn: () => void } | undefined;
      for (const [id, timer] of this.pending) {
        if (timer.atMs <= target && (!due || timer.atMs < due.atMs)) {
          dueId = id;
          due = timer;
        }
      }
      if (dueId === undefined || !due) break;
      this.pending.delete(dueId);
      this.nowMs = Math.max(this.nowMs, due.atMs);
      due.fn();
    }
    this.nowMs = target;
  }
}
