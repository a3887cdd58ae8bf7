import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import type { DbSession } from '../db/session.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { escrowConfigSecrets } from './config-secrets.ts';

/**
 * Once at hub start: secrets an older hub stored in clear in a collector's configuration are
 * sealed to the escrow key (config-secrets.ts), so an upgrade leaves none behind in the
 * database. Each row is re-read under its lock, so a configuration saved meanwhile is never
 * overwritten with an older one. Returns how many rows changed (a count, never a value).
 */
export async function escrowStoredConfigSecrets(deps: { db: DbSession; config: HubConfig }): Promise<number> {
  const rows = await deps.db.db.select({ id: collectors.id, config: collectors.config }).from(collectors);
  /** The configuration with its clear secrets sealed, or undefined when it has none (each row sealed once per look). */
  const resealed = (config: Record<string, unknown>): Record<string, unknown> | undefined => {
    const sealed = escrowConfigSecrets(deps.config, config);
    return JSON.stringify(sealed) !== JSON.stringify(config) ? sealed : undefined;
  };
  let changed = 0;
  // Only rows with a secret in clear are locked and rewritten: on a fleet's hub, usually none.
  for (const { id } of rows.filter((r) => resealed(r.config) !== undefined)) {
    const sealed = await deps.db.transaction(async (tx) => {
      const [row] = await tx.db.select({ config: collectors.config }).from(collectors).where(eq(collectors.id, id)).for('update');
      const config = row ? resealed(row.config) : undefined;
      if (!config) return false;
      await tx.db.update(collectors).set({ config }).where(eq(collectors.id, id));
      return true;
    });
    if (sealed) changed += 1;
  }
  return changed;
}
