import { apiKeyPrefix, isWellFormedApiKey } from '@alpr/shared/credentials/index';
import { rotateKeyPayloadSchema, type CommandAckRequest, type SignedCommand } from '@alpr/shared/protocol/collector';
import { replaceStoredApiKey } from '../keystore/keystore.ts';
import { deviceSecretKey } from '../vault/credentials.ts';
import { openSealed } from '../vault/sealed.ts';
import type { CommandRunnerDeps } from './ports.ts';

/**
 * rotate_key (docs/appliance-lifecycle.md "Key rotation"): open the new key with the device
 * key, store it sealed in credentials.enc, switch every hub call to it without a restart,
 * prove it with a heartbeat, then let the caller acknowledge on it. A key the hub refuses
 * (401 on the proof) is rolled back to the previous one, so a bad rotation never locks the
 * appliance out while its old key is still valid. Never logs the key, only its prefix.
 */
export async function runRotateKey(deps: CommandRunnerDeps, command: SignedCommand): Promise<CommandAckRequest> {
  const payload = rotateKeyPayloadSchema.safeParse(command.payload);
  if (!payload.success) return { status: 'failed', detail: 'payload is not { key_id, key_prefix, sealed_api_key, old_key_expires_at }' };
  let newKey: string;
  try {
    newKey = Buffer.from(openSealed(payload.data.sealed_api_key, deviceSecretKey(deps.vault))).toString('utf8');
  } catch {
    return { status: 'failed', detail: 'the sealed key does not open with this device key' };
  }
  if (!isWellFormedApiKey(newKey) || apiKeyPrefix(newKey) !== payload.data.key_prefix) {
    return { status: 'failed', detail: 'the sealed key is not the announced API key' };
  }
  const keyPrefix = payload.data.key_prefix;
  const previous = deps.keys.current();
  if (previous === newKey) {
    // Redelivered after a restart that lost the ack: already switched; the ack says so again.
    return { status: 'success', detail: `key ${keyPrefix} already in use` };
  }
  const store = { dataDir: deps.dataDir, now: () => new Date() };
  await replaceStoredApiKey(store, deps.vault, newKey);
  deps.keys.use(newKey);
  deps.log.info({ key_prefix: keyPrefix, previous_key_prefix: previous ? apiKeyPrefix(previous) : null }, 'switched to the rotated API key');
  const proof = await deps.keys.prove();
  if (proof === 'key_rejected' && previous !== undefined) {
    await replaceStoredApiKey(store, deps.vault, previous);
    deps.keys.use(previous);
    deps.log.error({ key_prefix: keyPrefix }, 'hub refused the rotated key: back on the previous key');
    return { status: 'failed', detail: `hub answered 401 to key ${keyPrefix}: kept the previous key` };
  }
  return {
    status: 'success',
    detail:
      proof === 'ok' ? `switched to key ${keyPrefix}; heartbeat on it accepted` : `switched to key ${keyPrefix}; heartbeat on it not answered yet (${proof})`,
  };
}
