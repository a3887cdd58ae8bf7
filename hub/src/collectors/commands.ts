import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { COMMAND_TYPES, type CommandType, type SignedCommand } from '@alpr/shared/protocol/collector';
import { signCommand } from '@alpr/shared/protocol/signing';
import { commands } from '../db/schema/commands.ts';
import type { DbSession } from '../db/session.ts';
import { loadOrCreateHubKey } from './hub-key.ts';

/**
 * Most commands handed out per heartbeat. Commands are few (a config push, a wipe); the cap
 * only keeps a response small if an admin queued many: the rest follow in the next beats.
 */
export const MAX_COMMANDS_PER_HEARTBEAT = 20;

/**
 * Queues a command for a collector, signed now with the hub key (Ed25519 over the
 * canonical JSON of id, collector_id, type, payload, issued_at). The signature is stored,
 * so every redelivery carries exactly the bytes that were signed.
 */
export async function queueCommand(
  db: DbSession,
  input: { collectorId: string; type: CommandType; payload: Record<string, unknown>; now: Date; createdBy: string | null },
): Promise<SignedCommand> {
  const hubKey = await loadOrCreateHubKey(db, input.now);
  const signed = signCommand(
    {
      id: randomUUID(),
      collector_id: input.collectorId,
      type: input.type,
      payload: input.payload,
      issued_at: input.now.toISOString(),
    },
    hubKey.secretKey,
  );
  await db.db.insert(commands).values({
    id: signed.id,
    collectorId: input.collectorId,
    type: signed.type,
    payload: signed.payload,
    signature: signed.signature,
    status: 'pending',
    // Stored at millisecond precision, the same instant as the signed `issued_at`.
    createdAt: input.now,
    createdBy: input.createdBy,
  });
  return signed;
}

/**
 * The collector's unacknowledged commands in creation order, marking first deliveries
 * `delivered`. A delivered command is sent again on every heartbeat until acknowledged: a
 * lost heartbeat response must not lose a command; the appliance applies each id once.
 */
export async function takePendingCommands(db: DbSession, collectorId: string, now: Date): Promise<SignedCommand[]> {
  const rows = await db.db
    .select()
    .from(commands)
    .where(and(eq(commands.collectorId, collectorId), ne(commands.status, 'acknowledged')))
    .orderBy(asc(commands.createdAt), asc(commands.id))
    .limit(MAX_COMMANDS_PER_HEARTBEAT);
  const firstTime = rows.filter((r) => r.status === 'pending').map((r) => r.id);
  if (firstTime.length > 0) {
    await db.db
      .update(commands)
      .set({ status: 'delivered', deliveredAt: now })
      .where(and(inArray(commands.id, firstTime), eq(commands.status, 'pending')));
  }
  return rows.flatMap((r) => {
    // Unsigned rows (written by something other than queueCommand) are never sent: the
    // appliance would refuse them anyway.
    if (r.signature === null || !isCommandType(r.type)) return [];
    return [
      {
        id: r.id,
        collector_id: r.collectorId,
        type: r.type,
        payload: r.payload,
        issued_at: r.createdAt.toISOString(),
        signature: r.signature,
      },
    ];
  });
}

function isCommandType(type: string): type is CommandType {
  return (COMMAND_TYPES as readonly string[]).includes(type);
}
