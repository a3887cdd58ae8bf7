import type { KeySummary } from '../collectors/list-keys.ts';
import type { CollectorSummary } from '../collectors/status.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';

/**
 * Verb results in the wire's snake_case. Pure: the routes call these after the verb.
 * Nothing secret passes through here: keys appear by id and prefix only.
 */
export function presentCollector(s: CollectorSummary) {
  return {
    id: s.id,
    site_name: s.siteName,
    site_address: s.siteAddress,
    status: s.status,
    /** `online` / `offline`, derived from the last heartbeat (docs/collectors.md). */
    connectivity: s.connectivity,
    /** Heard within 3 heartbeat intervals whatever the status: a suspended box still heartbeats. */
    heartbeats_arriving: s.heartbeatsArriving,
    last_heartbeat_at: iso(s.lastHeartbeatAt),
    heartbeat_interval_seconds: s.heartbeatIntervalSeconds,
    last_heartbeat: s.lastHeartbeat,
    config_version: s.configVersion,
    hardware_id: s.hardwareId,
    edge_version: s.edgeVersion,
    os_version: s.osVersion,
    claimed_at: iso(s.claimedAt),
    claim_code_expires_at: iso(s.claimCodeExpiresAt),
    created_at: s.createdAt.toISOString(),
    pending_replacement: s.pendingReplacement,
    suspended_at: iso(s.suspendedAt),
    suspend_reason: s.suspendReason,
  };
}

export function presentKey(k: KeySummary) {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    status: k.status,
    created_at: k.createdAt.toISOString(),
    expires_at: iso(k.expiresAt),
    last_used_at: iso(k.lastUsedAt),
    last_used_ip: k.lastUsedIp,
    revoked_at: iso(k.revokedAt),
    revoke_reason: k.revokeReason,
  };
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/**
 * Handed out beside every claim code: the installer types it on the appliance's setup page,
 * which pins it (docs/security.md "Certificate pinning"). Null when the hub serves no TLS
 * itself (plain HTTP on loopback, or a TLS proxy in front whose certificate the hub does not know).
 */
export function hubCertificateSha256(deps: { config: Pick<HubConfig, 'certificateSha256'> }): string | null {
  return deps.config.certificateSha256 ?? null;
}
