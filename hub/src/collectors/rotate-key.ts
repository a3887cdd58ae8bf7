import type { RotateKeyPayload } from '@alpr/shared/protocol/collector';
import { writeAudit } from '../platform/audit-writer.ts';
import { queueCommand } from './commands.ts';
import { addMs, HOUR_MS } from '../platform/clock.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { lockCollector, requireActive } from './find-collector.ts';
import { expireOtherKeys, issueApiKey } from './issue-key.ts';
import { rotateKeyInputSchema, type RotateKeyInput } from './schema.ts';
import { sealToDevice } from '@alpr/shared/protocol/sealed-box';

/**
 * How the new key reaches the collector: `command` = a signed `rotate_key` command carrying
 * the key sealed to the device (sent with the next heartbeat); `manual` = the collector
 * gave no public key at its claim, so only the admin can install the key shown once here.
 */
export type KeyDelivery = 'command' | 'manual';

/** docs/collectors.md response, in the contract's field names, plus how it is delivered. */
export interface RotatedKey {
  new_key: string;
  new_key_id: string;
  new_key_prefix: string;
  old_key_expires_at: string;
  message: string;
  delivery: KeyDelivery;
  command_id: string | null;
}

/**
 * Rotation (docs/collectors.md: active -> both active): a new key, and every other valid key
 * of the collector now expires at now + grace (default 24 h) unless it already expires
 * earlier. Both validate until then. The new key is returned here once and, when the
 * collector registered a public key at its claim, queued for it sealed in a signed
 * `rotate_key` command (docs/collectors.md "Key rotation"): the appliance switches, proves
 * the new key with a heartbeat and acknowledges with it, and that ack deactivates the old
 * keys early (ack-command.ts).
 */
export async function rotateKey(ctx: CollectorContext, actor: Actor, input: RotateKeyInput): Promise<RotatedKey> {
  const { collectorId, gracePeriodHours } = rotateKeyInputSchema.parse(input);
  const now = ctx.clock.now();
  const oldKeyExpiresAt = addMs(now, gracePeriodHours * HOUR_MS);
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    requireActive(row, 'rotate its key');
    const key = await issueApiKey(tx, { collectorId: row.id, createdBy: actor.userId, now, name: 'rotated' });
    const shortened = await expireOtherKeys(tx, { collectorId: row.id, keepKeyId: key.keyId, expiresAt: oldKeyExpiresAt });
    let commandId: string | null = null;
    if (row.publicKey !== null) {
      const payload: RotateKeyPayload = {
        key_id: key.keyId,
        key_prefix: key.keyPrefix,
        sealed_api_key: sealToDevice(new Uint8Array(Buffer.from(key.apiKey, 'utf8')), new Uint8Array(row.publicKey)),
        old_key_expires_at: oldKeyExpiresAt.toISOString(),
      };
      const command = await queueCommand(tx, { collectorId: row.id, type: 'rotate_key', payload: { ...payload }, now, createdBy: actor.userId });
      commandId = command.id;
    }
    const delivery: KeyDelivery = commandId === null ? 'manual' : 'command';
    await writeAudit(tx, {
      at: now,
      action: 'collector.key_rotated',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: {
        new_key_id: key.keyId,
        new_key_prefix: key.keyPrefix,
        old_keys: shortened,
        grace_period_hours: gracePeriodHours,
        delivery,
        command_id: commandId,
      },
    });
    ctx.log.info({ collector_id: row.id, key_prefix: key.keyPrefix, delivery }, 'collector key rotated');
    const until = oldKeyExpiresAt.toISOString();
    return {
      new_key: key.apiKey,
      new_key_id: key.keyId,
      new_key_prefix: key.keyPrefix,
      old_key_expires_at: until,
      message:
        delivery === 'command'
          ? `New key created and sent to the collector, sealed to its device key, with its next heartbeat. Previous keys stay valid until ${until}, or until the collector acknowledges the switch using the new key. It is shown only once.`
          : `New key created. This collector registered no device key at its claim, so it cannot receive the key automatically: install it on the collector before ${until}, when previous keys stop working. It is shown only once.`,
      delivery,
      command_id: commandId,
    };
  });
}
