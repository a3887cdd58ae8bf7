/**
 * Acknowledge or dismiss an alert (docs/alerts.md "Handling"): `new` -> `acknowledged`
 * (someone is on it) or `dismissed` (a false match, nothing to do), once, by an operator
 * or admin subscribed or not; audited in the same transaction.
 */
import { isBigintId } from '@alpr/shared/validation/params';
import { writeAudit } from '../platform/audit-writer.ts';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from '../watchlists/context.ts';

export type AlertHandling = 'acknowledged' | 'dismissed';

export async function handleAlert(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  alertId: string,
  to: AlertHandling,
  note: string | null,
): Promise<{ state: AlertHandling; handledAt: Date }> {
  if (!isBigintId(alertId)) throw new HubError('not_found', 'no such alert');
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.sql<{ state: string; handled_by: string | null }>('SELECT state, handled_by FROM alerts WHERE id = $1::bigint FOR UPDATE', [
      alertId,
    ]);
    if (!row) throw new HubError('not_found', 'no such alert');
    if (row.state !== 'new') throw new HubError('conflict', `this alert was already ${row.state}`);
    const now = ctx.clock.now();
    await tx.sql(`UPDATE alerts SET state = $2, handled_by = $3::uuid, handled_at = $4::timestamptz WHERE id = $1::bigint`, [
      alertId,
      to,
      actor.userId,
      now.toISOString(),
    ]);
    await writeAudit(tx, {
      at: now,
      action: `alert.${to === 'acknowledged' ? 'acknowledge' : 'dismiss'}`,
      actor: { userId: actor.userId },
      targetType: 'alert',
      targetId: alertId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      detail: note ? { note } : {},
    });
    return { state: to, handledAt: now };
  });
}
