import type { BatchLimits, BufferedItem, BufferedItemId, PendingStats, UplinkBufferPort } from './ports.ts';

/** Payload size the way the real buffer is expected to count it: images plus metadata. */
export const itemBytes = (item: BufferedItem): number =>
  JSON.stringify(item.detection).length + (item.images.full_scene?.byteLength ?? 0) + (item.images.plate_crop?.byteLength ?? 0);

/**
 * The buffer port over a Map, honouring the contract in ports.ts (oldest first, byte cap
 * with at least one row, rows stay until marked). Like the SQLite buffer, rows handed out
 * by `nextBatch` are hidden (in flight) until marked or released, so a missing `release`
 * would strand them and the tests would see it. Records every call for assertions.
 */
export class MemoryBuffer implements UplinkBufferPort {
  readonly items = new Map<BufferedItemId, BufferedItem>();
  readonly uploaded: BufferedItemId[] = [];
  readonly rejected: { id: BufferedItemId; reason: string }[] = [];
  readonly released: { ids: BufferedItemId[]; reason: string }[] = [];
  readonly inFlight = new Set<BufferedItemId>();
  /** Make the next calls throw, to check the loop survives a broken buffer. */
  failNext = 0;

  add(...items: BufferedItem[]): void {
    for (const item of items) this.items.set(item.id, item);
  }

  private waiting(): BufferedItem[] {
    return [...this.items.values()].filter((item) => !this.inFlight.has(item.id)).sort((a, b) => a.receivedAtMs - b.receivedAtMs);
  }

  private maybeFail(): void {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
  }

  pendingStats(): PendingStats {
    this.maybeFail();
    const waiting = this.waiting();
    return {
      count: waiting.length,
      bytes: waiting.reduce((sum, item) => sum + itemBytes(item), 0),
      oldestReceivedMs: waiting[0]?.receivedAtMs ?? null,
      cameraIds: [...new Set(waiting.map((item) => item.detection.camera.id))],
    };
  }

  nextBatch(limits: BatchLimits): BufferedItem[] {
    this.maybeFail();
    const batch: BufferedItem[] = [];
    let bytes = 0;
    for (const item of this.waiting()) {
      if (batch.length >= limits.maxItems) break;
      const size = itemBytes(item);
      if (batch.length > 0 && bytes + size > limits.maxBytes) break;
      batch.push(item);
      bytes += size;
    }
    for (const item of batch) this.inFlight.add(item.id);
    return batch;
  }

  markUploaded(ids: readonly BufferedItemId[]): void {
    for (const id of ids) {
      this.items.delete(id);
      this.inFlight.delete(id);
      this.uploaded.push(id);
    }
  }

  markRejected(id: BufferedItemId, reason: string): void {
    this.items.delete(id);
    this.inFlight.delete(id);
    this.rejected.push({ id, reason });
  }

  release(ids: readonly BufferedItemId[], reason: string): void {
    for (const id of ids) this.inFlight.delete(id);
    this.released.push({ ids: [...ids], reason });
  }
}
