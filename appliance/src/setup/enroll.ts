import type { Dispatcher } from 'undici';
import { parseClaimCode, parseProvisioningToken } from '@alpr/shared/credentials/index';
import type { EnrollmentResponse } from '@alpr/shared/protocol/collector';
import type { ApplianceErrorCode } from '../errors.ts';
import { storeEnrollment } from '../keystore/keystore.ts';
import type { HardwareIdentity } from '../vault/hardware-identity.ts';
import { generateDeviceKeyPair } from '../vault/sealed.ts';
import type { Vault } from '../vault/vault.ts';
import type { SetupCameraStore } from './camera-store.ts';
import { claimAtHub, provisionAtHub } from '../hub-api/enroll.ts';
import { checkHubUrl } from './hub-url.ts';
import { normalizeSha256Fingerprint } from '@alpr/shared/protocol/certificate-pin';
import { probeHubCertificate } from '../hub-api/probe-certificate.ts';
import { createHubAgent } from '../hub-api/tls.ts';
import type { SetupLog } from './ports.ts';

/**
 * The claim verb (pending -> active; docs/setup-page.md, docs/collectors.md): check what was typed,
 * make the device key pair, ask the hub, store the answer in the key store (sealed key, vault,
 * central layer), move staged camera credentials into the new vault, tell main. The API key exists
 * in clear only in memory between the hub's answer and storeEnrollment; the result carries its
 * prefix only.
 */
export interface EnrollDeps {
  clock: { now(): Date };
  log: SetupLog;
  dispatcher?: Dispatcher;
  identity: HardwareIdentity;
  dataDir: string;
  centralConfigFile: string;
  edgeVersion?: string;
  osVersion?: string;
  cameras: SetupCameraStore;
  onClaimed(claimed: Claimed): Promise<void> | void;
}

export interface Claimed {
  collectorId: string;
  keyPrefix: string;
  hubUrl: string;
  /** The pinned hub certificate; absent when the hub's certificate is publicly trusted. */
  hubCertificateSha256?: string;
  configVersion: number;
  vault: Vault;
}

/** `certificateSha256`: the hub certificate fingerprint the installer confirmed (optional). */
export type EnrollInput = { kind: 'claim' | 'provision'; hubUrl: string; secret: string; certificateSha256?: string };

export type EnrollOutcome =
  | { ok: true; claimed: Claimed }
  | {
      ok: false;
      status: number;
      code: ApplianceErrorCode;
      message: string;
      retryAfterSeconds?: number;
      /** The certificate the hub presented, for the page to show next to the fingerprint field. */
      presentedSha256?: string;
    };

export async function enroll(deps: EnrollDeps, input: EnrollInput): Promise<EnrollOutcome> {
  const hub = checkHubUrl(input.hubUrl);
  if (!hub.ok) return { ok: false, status: 400, code: 'bad_request', message: hub.message };
  const secret = input.kind === 'claim' ? parseClaimCode(input.secret) : parseProvisioningToken(input.secret);
  if (secret === undefined) {
    const message =
      input.kind === 'claim'
        ? 'That is not a claim code: it looks like ALPR-XXXX-XXXX (letters and digits, no O, I, L, 0 or 1).'
        : 'That is not a provisioning token: it starts with prov_ and is 48 characters long.';
    return { ok: false, status: 400, code: 'bad_request', message };
  }

  const pinned = await pinFor({ ...input, hubUrl: hub.url });
  if (!pinned.ok) return pinned;
  const pin = pinned.pin;
  // Pinned: the claim itself goes through an agent that accepts only that certificate, so a
  // certificate swapped between the check and the claim gets no claim code.
  const pinnedAgent = pin ? createHubAgent({ trust: { pins: () => [pin] } }) : undefined;
  try {
    return await enrollWith({ ...deps, ...(pinnedAgent ? { dispatcher: pinnedAgent } : {}) }, input, hub.url, secret, pin);
  } finally {
    await pinnedAgent?.close().catch(() => undefined);
  }
}

type PinDecision = { ok: true; pin?: string } | Extract<EnrollOutcome, { ok: false }>;

/**
 * docs/security.md "Certificate pinning": over https, look at the hub's certificate first.
 * Publicly trusted and no fingerprint typed: checked by CA as usual, nothing pinned. Not
 * publicly trusted: the installer must confirm its fingerprint (shown on the hub's collector
 * page); a typed fingerprint must match what the hub presents and is then pinned.
 */
async function pinFor(input: EnrollInput): Promise<PinDecision> {
  const typed = input.certificateSha256?.trim() ? normalizeSha256Fingerprint(input.certificateSha256) : undefined;
  if (input.certificateSha256?.trim() && typed === undefined) {
    return { ok: false, status: 400, code: 'bad_request', message: 'That is not a SHA-256 fingerprint: 64 hex digits, as the hub shows it (colons optional).' };
  }
  if (new URL(input.hubUrl).protocol !== 'https:') return { ok: true };
  const probe = await probeHubCertificate(input.hubUrl);
  if (!probe.ok) {
    return {
      ok: false,
      status: 502,
      code: 'unreachable',
      message: `Cannot make a TLS 1.3 connection to the hub at ${input.hubUrl} (${probe.message}). Check the hub URL and this device's network.`,
    };
  }
  if (typed !== undefined && typed !== probe.sha256) {
    return {
      ok: false,
      status: 400,
      code: 'hub_certificate_mismatch',
      presentedSha256: probe.sha256,
      message: `The hub presents a certificate with SHA-256 ${probe.sha256}, not the fingerprint you entered (${typed}). Do not claim: compare again with the collector page of the hub; if they differ, something between this device and the hub is impersonating it.`,
    };
  }
  if (typed !== undefined) return { ok: true, pin: typed };
  if (probe.publiclyTrusted) return { ok: true };
  return {
    ok: false,
    status: 400,
    code: 'hub_certificate_unconfirmed',
    presentedSha256: probe.sha256,
    message: `The hub's certificate is not publicly trusted (${probe.problem ?? 'unknown issuer'}). Its SHA-256 fingerprint is ${probe.sha256}. Compare it with the fingerprint on the hub's collector page; if they are the same, enter it under "Hub certificate fingerprint" and claim again. It will be pinned: a different certificate is refused afterwards.`,
  };
}

async function enrollWith(deps: EnrollDeps, input: EnrollInput, hubUrl: string, secret: string, pin: string | undefined): Promise<EnrollOutcome> {
  const hub = { url: hubUrl };
  let hardwareId: string;
  try {
    hardwareId = await deps.identity();
  } catch (error) {
    return { ok: false, status: 500, code: 'internal', message: `This device has no usable hardware id: ${(error as Error).message}` };
  }
  const keys = generateDeviceKeyPair();
  const device = {
    hardware_id: hardwareId,
    public_key: keys.publicKey,
    ...(deps.edgeVersion ? { edge_version: deps.edgeVersion } : {}),
    ...(deps.osVersion ? { os_version: deps.osVersion } : {}),
  };
  const result =
    input.kind === 'claim'
      ? await claimAtHub(deps, hub.url, { claim_code: secret, ...device })
      : await provisionAtHub(deps, hub.url, { provisioning_token: secret, ...device });
  if (!result.ok) {
    deps.log.warn({ hub_url: hub.url, kind: input.kind, status: result.status, reason: result.reason, failure: result.kind }, 'enrollment refused');
    const status = result.kind === 'refused' ? (result.status ?? 502) : result.kind === 'rate_limited' ? 429 : 502;
    return {
      ok: false,
      status,
      code: result.reason ?? result.kind,
      message: result.message,
      ...(result.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.retryAfterSeconds } : {}),
    };
  }
  // The hub's announced central_url gets the same check as a typed URL (keys travel only
  // over TLS): a hub that answers with plain http to a remote address is not followed; the
  // URL the installer typed (already checked) is kept.
  const announced = checkHubUrl(result.enrollment.central_url);
  if (!announced.ok) {
    deps.log.warn(
      { hub_url: hub.url, central_url: result.enrollment.central_url },
      'hub announced a central_url that is not https: keeping the URL typed on the setup page',
    );
  }
  return store(deps, { ...result.enrollment, central_url: announced.ok ? announced.url : hub.url }, keys, pin);
}

async function store(
  deps: EnrollDeps,
  enrollment: EnrollmentResponse,
  keys: ReturnType<typeof generateDeviceKeyPair>,
  pin: string | undefined,
): Promise<EnrollOutcome> {
  let claimed: Claimed;
  try {
    const ctx = { dataDir: deps.dataDir, identity: deps.identity, now: () => deps.clock.now() };
    const { vault, keyPrefix } = await storeEnrollment(
      ctx,
      { ...enrollment, hub_url: enrollment.central_url, ...(pin ? { hub_certificate_sha256: pin } : {}) },
      keys,
      deps.centralConfigFile,
    );
    const moved = await deps.cameras.moveCredentialsInto(vault);
    claimed = {
      collectorId: enrollment.collector_id,
      keyPrefix,
      hubUrl: enrollment.central_url,
      configVersion: enrollment.config_version,
      vault,
      ...(pin ? { hubCertificateSha256: pin } : {}),
    };
    deps.log.info({ collector_id: claimed.collectorId, key_prefix: keyPrefix, hub_url: claimed.hubUrl, camera_credentials_moved: moved }, 'appliance claimed');
  } catch (error) {
    deps.log.error({ err: error, collector_id: enrollment.collector_id }, 'claim accepted by the hub but not stored');
    return {
      ok: false,
      status: 500,
      code: 'not_stored',
      message: `The hub accepted the claim, but this device could not store its key (${(error as Error).message}). The code is now used: ask the hub administrator for a provisioning token.`,
    };
  }
  try {
    await deps.onClaimed(claimed);
  } catch (error) {
    // The enrollment is on disk: a restart picks it up even if the live switch-over failed.
    deps.log.error({ err: error }, 'claimed, but restarting the loops failed; restart the appliance');
  }
  return { ok: true, claimed };
}
