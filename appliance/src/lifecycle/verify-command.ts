import { signedCommandSchema, type SignedCommand } from '@alpr/shared/protocol/collector';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { isUuid } from '@alpr/shared/validation/uuid';

/**
 * Pure: is this element of `pending_commands` a command we may run? Three refusals (docs/
 * appliance-lifecycle.md "Command verification"): not the protocol shape, signature that does
 * not verify against the hub key stored at claim, or addressed to another collector. The id
 * is returned when it can be read, so the refusal can be acknowledged as `failed`.
 */
export type Verdict =
  { ok: true; command: SignedCommand } | { ok: false; id: string | undefined; reason: 'malformed' | 'signature invalid' | 'collector_id mismatch' };

export function commandIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' && isUuid(id) ? id : undefined;
}

export function verifyCommand(raw: unknown, trust: { collectorId: string; hubPublicKey: string }): Verdict {
  const parsed = signedCommandSchema.safeParse(raw);
  if (!parsed.success) {
    const id = commandIdOf(raw);
    // A command with an id but no signature is "unsigned": the same refusal as a bad one.
    const unsigned = id !== undefined && typeof (raw as { signature?: unknown }).signature !== 'string';
    return { ok: false, id, reason: unsigned ? 'signature invalid' : 'malformed' };
  }
  const command = parsed.data;
  // Signature first: a forged command learns nothing from which check failed.
  if (!verifyCommandSignature(command, trust.hubPublicKey)) return { ok: false, id: command.id, reason: 'signature invalid' };
  if (command.collector_id !== trust.collectorId) return { ok: false, id: command.id, reason: 'collector_id mismatch' };
  return { ok: true, command };
}
