/**
 * The hub's one error model: a closed set of codes, one class, one mapping to HTTP status
 * (`platform/http/on-error.ts`). Verbs throw `HubError`; routes never build error bodies by hand.
 */
import { COLLECTOR_REFUSAL_REASONS, ENROLLMENT_REFUSAL_REASONS } from '@alpr/shared/protocol/collector';
export const HUB_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;
export type HubErrorCode = keyof typeof HUB_ERROR_STATUS;

/**
 * Machine-readable reasons where two refusals share a code and status (an expired and a used
 * claim code are both 410 `gone`): rendered as `error.reason` beside `{ code, message }`.
 * The lists are the wire contract's (shared/src/protocol/collector.ts): the appliance reads
 * the same names (appliance/src/uplink/classify-response.ts).
 */
export const HUB_ERROR_REASONS = [...ENROLLMENT_REFUSAL_REASONS, ...COLLECTOR_REFUSAL_REASONS] as const;
export type HubErrorReason = (typeof HUB_ERROR_REASONS)[number];

export class HubError extends Error {
  readonly code: HubErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: HubErrorReason | undefined;
  constructor(code: HubErrorCode, message: string, headers: Record<string, string> = {}, reason?: HubErrorReason) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.headers = headers;
    this.reason = reason;
  }
  get status(): number {
    return HUB_ERROR_STATUS[this.code];
  }
}

/** A refusal that carries a reason (see HUB_ERROR_REASONS). */
export function reasonedError(code: HubErrorCode, reason: HubErrorReason, message: string, headers: Record<string, string> = {}): HubError {
  return new HubError(code, message, headers, reason);
}
