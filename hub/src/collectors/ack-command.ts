import { and, eq } from 'drizzle-orm';
import { rotateKeyPayloadSchema, type CameraAck, type CommandAckRequest } from '@alpr/shared/protocol/collector';
import { cameras } from '../db/schema/cameras.ts';
import type { DbSession } from '../db/session.ts';
import { commands } from '../db/schema/commands.ts';
import { HubError } from '../platform/errors.ts';
import type { AuthenticatedCollector } from './api-key-auth.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { CollectorContext } from './context.ts';
import { deactivateKeysReplacedBy } from './deactivate-key.ts';

export interface CommandAck {
  id: string;
  acknowledged: true;
  status: CommandAckRequest['status'];
  acknowledged_at: string;
}

/**
 * Records a collector's acknowledgment (docs/protocol.md). Only the owning
 * collector may acknowledge; for any other the command does not exist (404, so ids of other
 * collectors' commands are not confirmed). A repeated ack returns the first answer
 * unchanged: the collector may resend after a lost response.
 *
 * A `rotate_key` acknowledged `success` on a request authenticated by the very key it
 * delivered is the proof required before the old key goes (docs/collectors.md): the older keys are
 * deactivated in the same transaction (deactivate-key.ts). An ack sent with the old key
 * proves nothing, and the old keys then simply run out at the end of the grace period.
 */
export async function ackCommand(ctx: CollectorContext, caller: AuthenticatedCollector, commandId: string, input: CommandAckRequest): Promise<CommandAck> {
  const { collectorId } = caller;
  if (!isUuid(commandId)) throw notFound();
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.db
      .select()
      .from(commands)
      .where(and(eq(commands.id, commandId), eq(commands.collectorId, collectorId)))
      .for('update');
    if (!row) throw notFound();
    if (row.status === 'acknowledged' && row.ackStatus !== null && row.acknowledgedAt !== null) {
      return { id: row.id, acknowledged: true, status: row.ackStatus, acknowledged_at: row.acknowledgedAt.toISOString() };
    }
    await tx.db
      .update(commands)
      .set({
        status: 'acknowledged',
        ackStatus: input.status,
        ackDetail: input.detail ?? null,
        ackCameras: input.cameras ?? null,
        acknowledgedAt: now,
        // An ack for a command the hub never marked delivered (response lost mid-flight).
        deliveredAt: row.deliveredAt ?? now,
      })
      .where(eq(commands.id, row.id));
    if (row.type === 'config_update' && input.cameras) await recordCameraOutcomes(tx, collectorId, input.cameras, now);
    if (row.type === 'rotate_key' && input.status === 'success') {
      const payload = rotateKeyPayloadSchema.safeParse(row.payload);
      if (payload.success && payload.data.key_id === caller.keyId) {
        await deactivateKeysReplacedBy(ctx, tx, { collectorId, newKeyId: caller.keyId, commandId: row.id, now });
      }
    }
    const level = input.status === 'success' ? 'info' : 'warn';
    ctx.log[level]({ collector_id: collectorId, command_id: row.id, type: row.type, ack: input.status }, 'command acknowledged');
    return { id: row.id, acknowledged: true, status: input.status, acknowledged_at: now.toISOString() };
  });
}

function notFound(): HubError {
  return new HubError('not_found', 'no such command');
}

/**
 * The per-camera answers of a config_update, kept on the central camera rows they name (the
 * collector page shows the latest). Ids that are not central cameras (set up on the device's
 * own page) stay only in the command's `ack_cameras`.
 */
async function recordCameraOutcomes(tx: DbSession, collectorId: string, answers: readonly CameraAck[], now: Date): Promise<void> {
  for (const answer of answers) {
    if (!isUuid(answer.id)) continue;
    await tx.db
      .update(cameras)
      .set({ lastOutcome: answer.outcome, lastOutcomeDetail: answer.detail ?? null, lastOutcomeAt: now })
      .where(and(eq(cameras.id, answer.id), eq(cameras.collectorId, collectorId)));
  }
}
