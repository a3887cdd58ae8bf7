import type { Dispatcher } from 'undici';
import {
  enrollmentRefusalSchema,
  enrollmentResponseSchema,
  type EnrollmentRefusalReason,
  type ClaimRequest,
  type EnrollmentResponse,
  type ProvisionRequest,
} from '@alpr/shared/protocol/collector';
import { CLAIM_PATH, PROVISION_PATH } from '@alpr/shared/protocol/paths';
import { headerValue, postJson } from './request.ts';
import { ENROLL_MAX_RESPONSE_BYTES, ENROLL_TIMEOUTS } from './timeouts.ts';

/**
 * The two unauthenticated enrollment calls to the hub (docs/collectors.md "Claim and
 * provision errors"). Never throws: a refusal is a value with a message a person can act
 * on. The answer holds the API key: it is parsed here and never logged or echoed.
 */
export type EnrollFailureKind = 'refused' | 'rate_limited' | 'unreachable' | 'bad_answer';

export type EnrollResult =
  | { ok: true; enrollment: EnrollmentResponse }
  | { ok: false; kind: EnrollFailureKind; status?: number; reason?: EnrollmentRefusalReason; message: string; retryAfterSeconds?: number };

/** What the person at the setup page reads for each hub `reason`. */
const REASON_MESSAGES: Partial<Record<EnrollmentRefusalReason, string>> = {
  claim_code_unknown: 'The hub does not know this claim code. Check what you typed (the code is on the collector page of the hub).',
  claim_code_expired: 'This claim code has expired (codes are valid 48 hours). Ask the hub administrator for a new one.',
  claim_code_used: 'This claim code was already used. Ask the hub administrator for a new one.',
  hardware_already_registered:
    'This device is already registered to another collector on the hub. Ask the administrator to decommission it or issue a provisioning token for it.',
  collector_not_claimable: 'The collector for this code can no longer be claimed (it is active or decommissioned). Contact the hub administrator.',
  hardware_mismatch: 'The provisioning token belongs to a collector bound to different hardware. Contact the hub administrator.',
  provisioning_token_unknown: 'The hub does not know this provisioning token. Check that it was pasted in full.',
  provisioning_token_expired: 'This provisioning token has expired (tokens are valid 1 hour). Ask the hub administrator for a new one.',
  provisioning_token_used: 'This provisioning token was already used. Ask the hub administrator for a new one.',
};

export interface HubEnrollDeps {
  dispatcher?: Dispatcher;
}

export const claimAtHub = (deps: HubEnrollDeps, hubUrl: string, body: ClaimRequest): Promise<EnrollResult> => postEnrollment(deps, hubUrl, CLAIM_PATH, body);

export const provisionAtHub = (deps: HubEnrollDeps, hubUrl: string, body: ProvisionRequest): Promise<EnrollResult> =>
  postEnrollment(deps, hubUrl, PROVISION_PATH, body);

async function postEnrollment(deps: HubEnrollDeps, hubUrl: string, path: string, body: unknown): Promise<EnrollResult> {
  const target = { hubUrl, ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}) };
  const reply = await postJson(target, { path, json: body, timeouts: ENROLL_TIMEOUTS, maxResponseBytes: ENROLL_MAX_RESPONSE_BYTES });
  if (reply.kind === 'oversized') {
    return {
      ok: false,
      kind: 'bad_answer',
      status: reply.status,
      message: `The hub answered HTTP ${reply.status} with an oversized body: is ${hubUrl} the hub?`,
    };
  }
  if (reply.kind === 'network') {
    const code = (reply.error as { code?: unknown }).code;
    const detail = typeof code === 'string' ? code : reply.error instanceof Error ? reply.error.message : String(reply.error);
    return { ok: false, kind: 'unreachable', message: `Cannot reach the hub at ${hubUrl} (${detail}). Check the hub URL and this device's network.` };
  }
  const { status, headers } = reply;
  const json = safeJson(reply.text);
  if (status === 200) {
    const parsed = enrollmentResponseSchema.safeParse(json);
    if (parsed.success) return { ok: true, enrollment: parsed.data };
    return { ok: false, kind: 'bad_answer', status, message: `The hub at ${hubUrl} answered, but not with an enrollment: is it the hub?` };
  }
  return refusal(status, headers, json, hubUrl);
}

function refusal(status: number, headers: Record<string, string | string[] | undefined>, json: unknown, hubUrl: string): EnrollResult {
  const parsed = enrollmentRefusalSchema.safeParse(json);
  const error = parsed.success ? parsed.data.error : undefined;
  const reason = error?.reason;
  const hubMessage = error?.message?.slice(0, 300);
  if (status === 429) {
    const retry = Number(headerValue(headers['retry-after']));
    const retryAfterSeconds = Number.isFinite(retry) && retry > 0 ? Math.ceil(retry) : undefined;
    const wait = retryAfterSeconds !== undefined ? ` Try again in ${retryAfterSeconds} s.` : ' Try again in a minute.';
    return {
      ok: false,
      kind: 'rate_limited',
      status,
      message: `The hub refused: too many attempts from this network.${wait}`,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  const known = reason !== undefined ? REASON_MESSAGES[reason] : undefined;
  const message = known ?? `The hub refused (HTTP ${status}${hubMessage ? `: ${hubMessage}` : ''}).`;
  const kind: EnrollFailureKind = status >= 500 || (known === undefined && hubMessage === undefined) ? 'bad_answer' : 'refused';
  return {
    ok: false,
    kind,
    status,
    ...(reason !== undefined ? { reason } : {}),
    message: kind === 'bad_answer' && status >= 500 ? `The hub at ${hubUrl} failed (HTTP ${status}). Try again later.` : message,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
