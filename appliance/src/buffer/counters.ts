import { sql } from 'drizzle-orm';
import { counters } from './schema/counters.ts';
import type { BufferDb, DetectionBuffer } from './types.ts';

/** Adds `by` to a named counter (created at 0). Pass a transaction to count atomically with it. */
export function incrementCounter(db: BufferDb, name: string, by = 1): void {
  if (by === 0) return;
  db.insert(counters)
    .values({ name, value: by })
    .onConflictDoUpdate({ target: counters.name, set: { value: sql`${counters.value} + ${by}` } })
    .run();
}

export function readCounters(buffer: DetectionBuffer): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of buffer.db.select().from(counters).orderBy(counters.name).all()) out[row.name] = row.value;
  return out;
}
