import { and, eq, ne } from 'drizzle-orm';
import type { EnrollmentResponse } from '@alpr/shared/protocol/collector';
import { collectors } from '../db/schema/collectors.ts';
import type { DbSession } from '../db/session.ts';
import { HubError, reasonedError } from '../platform/errors.ts';
import { addMs, HOUR_MS } from '../platform/clock.ts';
import { SYSTEM_ACTOR_ID } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { loadOrCreateHubKey } from './hub-key.ts';
import { expireOtherKeys, issueApiKey, revokeReplacedKeys } from './issue-key.ts';
import { deviceConfig } from './push-config.ts';

/** docs/collectors.md: default rotation grace period, also used by re-provisioning. */
export const DEFAULT_GRACE_MS = 24 * HOUR_MS;

export interface EnrollmentDevice {
  hardwareId?: string | undefined;
  /** Appliance X25519 public key, base64 (32 bytes). */
  publicKey?: string | undefined;
  edgeVersion?: string | undefined;
  osVersion?: string | undefined;
}

/** The device fields of a claim or provision request (snake_case on the wire). */
export function deviceFromWire(input: {
  hardware_id?: string | undefined;
  public_key?: string | undefined;
  edge_version?: string | undefined;
  os_version?: string | undefined;
}): EnrollmentDevice {
  return { hardwareId: input.hardware_id, publicKey: input.public_key, edgeVersion: input.edge_version, osVersion: input.os_version };
}

export interface EnrollmentTarget {
  id: string;
  hardwareId: string | null;
  createdBy: string | null;
  config: Record<string, unknown>;
  configVersion: number;
  /** The key the collector's current box sent at its claim, if any. */
  publicKey?: Uint8Array | null;
}

/**
 * Binds a device to a collector inside the caller's transaction (claim or provision):
 * status `active`, claim code cleared, claim time/address/hardware recorded, a new API
 * key issued. Keys the collector already holds keep working for the rotation grace
 * period (re-provisioning is a rotation). Returns the one response that reveals the key.
 */
export async function enrollDevice(
  ctx: CollectorContext,
  tx: DbSession,
  target: EnrollmentTarget,
  device: EnrollmentDevice,
  ip: string | null,
  options: { replacing?: boolean } = {},
): Promise<EnrollmentResponse> {
  const now = ctx.clock.now();
  const replacing = options.replacing === true;
  refuseLoopbackUrlToRemote(ctx.config.publicUrl, ip);
  const hardwareId = device.hardwareId?.trim() || undefined;
  if (hardwareId !== undefined) {
    // A replacement binds new hardware on purpose (replace.ts); otherwise the box must be the same.
    if (!replacing && target.hardwareId !== null && target.hardwareId !== hardwareId) {
      throw reasonedError('conflict', 'hardware_mismatch', 'this collector is bound to another device; ask the admin to replace it');
    }
    const [other] = await tx.db
      .select({ id: collectors.id })
      .from(collectors)
      // A decommissioned collector keeps its hardware id as history only: the box is free.
      .where(and(eq(collectors.hardwareId, hardwareId), ne(collectors.id, target.id), ne(collectors.status, 'decommissioned')))
      .limit(1);
    if (other) {
      throw reasonedError('conflict', 'hardware_already_registered', 'this device is already registered to another collector; contact the admin');
    }
  }
  const publicKey: Uint8Array | null = device.publicKey !== undefined ? decodePublicKey(device.publicKey) : (target.publicKey ?? null);
  await tx.db
    .update(collectors)
    .set({
      // A replaced box takes over the collector as it is: a suspended site stays suspended.
      ...(replacing ? { pendingReplacement: false, replacementRequestedAt: null } : { status: 'active' as const }),
      claimCode: null,
      claimCodeExpiresAt: null,
      claimedAt: now,
      claimedFromIp: ip,
      ...(hardwareId !== undefined ? { hardwareId } : {}),
      ...(device.publicKey !== undefined ? { publicKey } : {}),
      ...(device.edgeVersion !== undefined ? { edgeVersion: device.edgeVersion } : {}),
      ...(device.osVersion !== undefined ? { osVersion: device.osVersion } : {}),
      updatedAt: now,
    })
    .where(eq(collectors.id, target.id));
  const key = await issueApiKey(tx, { collectorId: target.id, createdBy: target.createdBy ?? SYSTEM_ACTOR_ID, now });
  if (replacing) {
    // The old box may be stolen or half-alive: its keys end now, with no grace (replace.ts).
    await revokeReplacedKeys(tx, { collectorId: target.id, keepKeyId: key.keyId, now });
  } else {
    await expireOtherKeys(tx, { collectorId: target.id, keepKeyId: key.keyId, expiresAt: addMs(now, DEFAULT_GRACE_MS) });
  }
  const hubKey = await loadOrCreateHubKey(tx, now);
  return {
    collector_id: target.id,
    api_key: key.apiKey,
    central_url: ctx.config.publicUrl,
    // The admin's configuration with the central cameras, sealed to this box's key.
    config: await deviceConfig(tx, ctx.config, { id: target.id, config: target.config, publicKey }),
    config_version: target.configVersion,
    hub_public_key: hubKey.publicKeyBase64,
  };
}

function decodePublicKey(base64: string): Buffer {
  const bytes = Buffer.from(base64, 'base64');
  // X25519 public keys are 32 bytes; anything else could never seal a credential.
  if (bytes.length !== 32 || bytes.toString('base64') !== base64) {
    throw new HubError('bad_request', 'public_key must be a base64 X25519 public key (32 bytes)');
  }
  return bytes;
}

/**
 * A hub started without HUB_PUBLIC_URL would tell the device to use http://127.0.0.1:…,
 * i.e. itself: the claim would "succeed" and the device would never reach the hub again.
 * Refused before anything is written (the code stays usable once the URL is set). A device
 * on the hub's own machine (loopback, demos and tests) may still use a loopback URL.
 */
export function refuseLoopbackUrlToRemote(publicUrl: string, ip: string | null): void {
  if (!isLoopbackHost(new URL(publicUrl).hostname)) return;
  if (ip !== null && isLoopbackHost(ip)) return;
  throw reasonedError(
    'unavailable',
    'hub_public_url_unset',
    'the hub has no public address configured (HUB_PUBLIC_URL); the admin must set it before devices can be claimed',
  );
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h);
}
