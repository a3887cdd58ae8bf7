import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import { isUuid } from '@alpr/shared/validation/uuid';

export type CollectorRow = typeof collectors.$inferSelect;

/** The collector, locked for the rest of the transaction; 404 when there is none. */
export async function lockCollector(tx: DbSession, collectorId: string): Promise<CollectorRow> {
  if (!isUuid(collectorId)) throw new HubError('not_found', 'no such collector');
  const [row] = await tx.db.select().from(collectors).where(eq(collectors.id, collectorId)).for('update');
  if (!row) throw new HubError('not_found', 'no such collector');
  return row;
}

/** Admin commands (config push, wipe) go to collectors that can still receive them. */
export function requireActive(row: CollectorRow, action: string): void {
  if (row.status !== 'active') throw new HubError('conflict', `collector is ${row.status}: cannot ${action}`);
}
