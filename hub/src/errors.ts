/**
 * The hub's one error model: a closed set of codes, one class, one mapping to HTTP status
 * (`http/on-error.ts`). Verbs throw `HubError`; routes never build error bodies by hand.
 */
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

export class HubError extends Error {
  readonly code: HubErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  constructor(code: HubErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.headers = headers;
  }
  get status(): number {
    return HUB_ERROR_STATUS[this.code];
  }
}
