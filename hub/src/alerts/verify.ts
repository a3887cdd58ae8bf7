/**
 * Verify an alert (docs/alerts.md "Verification"): an operator or admin, having compared the
 * read's crop with the list entry, marks it `confirmed` (the crop shows the listed plate) or
 * `misread`, with a note. Once per alert: a second verdict is a 409, so the alert and the
 * audit log never disagree about who decided what. The verdict, its audit row and the
 * NOTIFY that tells every hub process's live channel commit together.
 */
import { isBigintId } from '@alpr/shared/validation/params';
import { writeAudit } from '../platform/audit-writer.ts';
import { ALERT_VERIFIED_CHANNEL } from '../db/channels.ts';
import type { AlertVerdict } from '../db/schema/alerts.ts';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from '../watchlists/context.ts';

export interface Verified {
  verification: AlertVerdict;
  verifiedBy: string;
  verifiedAt: Date;
  note: string | null;
}

export async function verifyAlert(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  alertId: string,
  verdict: AlertVerdict,
  note: string | null,
): Promise<Verified> {
  if (!isBigintId(alertId)) throw new HubError('not_found', 'no such alert');
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.sql<{ verification: string }>('SELECT verification FROM alerts WHERE id = $1::bigint FOR UPDATE', [alertId]);
    if (!row) throw new HubError('not_found', 'no such alert');
    if (row.verification !== 'unverified') throw new HubError('conflict', `this alert was already marked ${row.verification}`);
    const now = ctx.clock.now();
    await tx.sql(`UPDATE alerts SET verification = $2, verified_by = $3::uuid, verified_at = $4::timestamptz, verification_note = $5 WHERE id = $1::bigint`, [
      alertId,
      verdict,
      actor.userId,
      now.toISOString(),
      note,
    ]);
    await writeAudit(tx, {
      at: now,
      action: `alert.${verdict === 'confirmed' ? 'confirm' : 'misread'}`,
      actor: { userId: actor.userId },
      targetType: 'alert',
      targetId: alertId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      detail: note ? { verification: verdict, note } : { verification: verdict },
    });
    await tx.sql(`SELECT pg_notify('${ALERT_VERIFIED_CHANNEL}', $1::text)`, [JSON.stringify({ ids: [alertId] })]);
    return { verification: verdict, verifiedBy: actor.userId, verifiedAt: now, note };
  });
}
