import { eq } from 'drizzle-orm';
import { cursors } from './schema/cursors.ts';
import type { DetectionBuffer } from './types.ts';

/** A pull runner's saved position (vendor_a last id, vendor_b last timestamp), or null. */
export function getCursor(buffer: DetectionBuffer, key: string): string | null {
  const row = buffer.db.select({ cursor: cursors.cursor }).from(cursors).where(eq(cursors.key, key)).get();
  return row?.cursor ?? null;
}

/**
 * Saves a runner's position. Call it after the detections it covers were inserted: a crash
 * in between re-reads a page (deduped by detection_id) rather than skipping one.
 */
export function setCursor(buffer: DetectionBuffer, key: string, value: string): void {
  const updatedMs = buffer.clock.now().getTime();
  buffer.db
    .insert(cursors)
    .values({ key, cursor: value, updatedMs })
    .onConflictDoUpdate({ target: cursors.key, set: { cursor: value, updatedMs } })
    .run();
}
