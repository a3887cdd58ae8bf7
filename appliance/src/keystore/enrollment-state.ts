import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import { ApplianceError, isVaultError, type VaultErrorCode } from '../errors.ts';
import type { HardwareIdentity } from '../vault/hardware-identity.ts';
import type { Vault } from '../vault/vault.ts';
import { loadEnrollment, type StoredEnrollment } from './keystore.ts';

/**
 * What the appliance finds in its keystore at start (docs/uplink.md "Enrollment at start").
 *
 * - `claimed`: the sealed credentials file opened; heartbeat and uplink run.
 * - `unclaimed`: no credentials file; the setup page is open.
 * - `unusable`: the file is there but does not open (other hardware, tampered, corrupt).
 *   A visible degraded state, not a startup error: under systemd a failing start would loop
 *   and close the setup page, the only place a person on site can see and fix it. The
 *   appliance runs unclaimed (cameras buffer, the setup page is open for a new claim or
 *   provisioning token), the problem is logged at error level on every start and shown on
 *   `/api/v1/status` and the page until a claim replaces the file.
 *
 * Anything that is not a vault error (`isVaultError`), such as permission denied or an I/O
 * error, is a startup error: the appliance cannot tell whether it is claimed, and guessing
 * "unclaimed" would hide it.
 */
export type EnrollmentState =
  { state: 'claimed'; enrollment: StoredEnrollment; vault: Vault } | { state: 'unclaimed' } | { state: 'unusable'; code: VaultErrorCode; problem: string };

export async function readEnrollment(ctx: { dataDir: string; identity: HardwareIdentity }): Promise<EnrollmentState> {
  try {
    const { enrollment, vault } = await loadEnrollment(ctx);
    return { state: 'claimed', enrollment, vault };
  } catch (error) {
    if (isVaultError(error)) {
      if (error.code === 'not_claimed') return { state: 'unclaimed' };
      return { state: 'unusable', code: error.code, problem: error.message };
    }
    throw new ApplianceError('start_failed', `cannot read the stored enrollment in ${ctx.dataDir}: ${(error as Error).message}`, { cause: error });
  }
}

/** The public view of the state (diagnostics JSON and page): never the key. */
export type EnrollmentReport =
  { state: 'claimed'; collector_id: string } | { state: 'unclaimed' } | { state: 'unusable'; code: VaultErrorCode; problem: string };

export function reportOf(state: EnrollmentState): EnrollmentReport {
  if (state.state === 'claimed') return { state: 'claimed', collector_id: state.enrollment.collector_id };
  return state;
}

/**
 * The key in the documented order (keystore.ts loadApiKey, without opening the vault again): the
 * environment wins, unless rotation has since replaced it (its prefix is in
 * `replaced_key_prefixes`): then the sealed file's key, and the caller warns.
 */
export function apiKeyOf(state: EnrollmentState, environmentKey: string | undefined): { apiKey: string; staleEnvironmentPrefix?: string } | undefined {
  const stored = state.state === 'claimed' ? state.enrollment : undefined;
  if (environmentKey) {
    const prefix = apiKeyPrefix(environmentKey);
    const stale = stored !== undefined && environmentKey !== stored.api_key && (stored.replaced_key_prefixes ?? []).includes(prefix);
    return stale ? { apiKey: stored.api_key, staleEnvironmentPrefix: prefix } : { apiKey: environmentKey };
  }
  return stored ? { apiKey: stored.api_key } : undefined;
}
