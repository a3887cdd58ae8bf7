import { ENROLLMENT_REFUSAL_REASONS, type EnrollmentRefusalReason } from '@alpr/shared/protocol/collector';

/**
 * The appliance's one error model: a closed set of codes, one class. On port 8080 the edge
 * maps it to status and `{ error: { code, message } }` (http/edge.ts `errorHandler`):
 * routes and guards throw `ApplianceError` and build no error body by hand. Codes that never
 * reach HTTP (vault, start-up, buffer, camera runners) are here too, because callers act on
 * them; their status only matters if one ever escapes to a request (500/502/503/504).
 */
export const APPLIANCE_ERROR_STATUS = {
  bad_request: 400,
  /** GET /metrics without the configured bearer token (docs/metrics.md). */
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** The setup routes once the appliance is claimed. */
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  /** The hub accepted a claim but this device could not store its key. */
  not_stored: 500,
  /** The hub refused an enrollment for a reason it did not name (the hub's status is relayed). */
  refused: 400,
  /** The hub could not be reached, or did not answer like a hub. */
  unreachable: 502,
  bad_answer: 502,
  /** Claim over https: the hub's certificate is not publicly trusted and its fingerprint was not confirmed, or differs from the one typed. */
  hub_certificate_unconfirmed: 400,
  hub_certificate_mismatch: 400,
  // Camera pushes on port 8080 (cameras/vendor-a-push.ts, runtime/ingest-admission.ts;
  // docs/cameras.md, docs/setup-page.md "Camera pushes"). A refused sink answers too:
  // `sink_refused` below, 503 with Retry-After, so the camera sends the read again.
  /** No adapter can read the pushed payload, or every item in it is broken: a retry would not help. */
  unparseable: 400,
  /** A configured camera's push from an address other than its pinned `pushSource`/`host`. */
  wrong_source: 403,
  /** A push without the camera's shared secret, or with a wrong one (with `WWW-Authenticate: Basic`). */
  bad_push_secret: 401,
  /** A push naming no configured camera while `[ingest] accept_unknown_cameras` is off. */
  unknown_camera: 403,
  // The vault and the key store: these never reach HTTP (a 500 if one did), but callers act
  // on them: `not_claimed` starts the appliance unclaimed, the others make the stored
  // enrollment unusable and are shown on the diagnostics page as they are.
  /** No vault.json / credentials.enc: the appliance is not claimed (or was wiped). */
  not_claimed: 500,
  /** The derived key does not open the vault: other hardware, collector id or install time. */
  device_mismatch: 500,
  /** A sealed entry failed authentication: the file was edited or is corrupt. */
  tampered: 500,
  /** The file is not the JSON shape we write. */
  corrupt: 500,
  /** No usable hardware serial could be read. */
  no_hardware_serial: 500,
  /** A sealed credential from the hub could not be opened with the device key. */
  sealed_unreadable: 500,
  // Start-up and the local buffer: never answered over HTTP, each stops or refuses one thing.
  /** The configuration (TOML layers or environment) does not validate: the appliance does not start. */
  invalid_config: 500,
  /** The stored enrollment cannot be read for a reason other than the vault's (permissions, I/O). */
  start_failed: 500,
  /** A detection does not match the common schema: the buffer refuses it. */
  invalid_detection: 500,
  /** A write to a buffer opened read-only. */
  read_only: 500,
  // Camera runners: the cycle's outcome decides the camera's state and the retry; only a
  // refused sink on a push is an HTTP answer (503). Only `camera_unreachable` says anything
  // about the camera: a refused sink (buffer full, disk error) must not mark a healthy camera OFFLINE.
  /** The camera could not be reached or answered something other than expected. */
  camera_unreachable: 502,
  /** The sink did not commit a detection; nothing after it was acknowledged. */
  sink_refused: 503,
  /** A camera HTTP call: no answer in time (headers or body). */
  timeout: 504,
  /** A camera answer over the client's byte cap: retrying gets the same answer. */
  body_too_large: 502,
  /** A camera's TCP/TLS connection failed. */
  connect_failed: 502,
  /** Any other failure of a camera HTTP call. */
  request_failed: 502,
} as const;

export const VAULT_ERROR_CODES = [
  'not_claimed',
  'device_mismatch',
  'tampered',
  'corrupt',
  'no_hardware_serial',
  'sealed_unreadable',
] as const satisfies readonly (keyof typeof APPLIANCE_ERROR_STATUS)[];
export type VaultErrorCode = (typeof VAULT_ERROR_CODES)[number];

export type ApplianceErrorCode = keyof typeof APPLIANCE_ERROR_STATUS | EnrollmentRefusalReason;

/** A named hub refusal keeps the hub's code on the setup page's wire; its status is the hub's. */
const isRefusalReason = (code: string): code is EnrollmentRefusalReason => (ENROLLMENT_REFUSAL_REASONS as readonly string[]).includes(code);

export interface ApplianceErrorOptions {
  /** The underlying error, kept for the logs. */
  cause?: unknown;
  /** Response headers (Retry-After on a rate limit). */
  headers?: Record<string, string>;
  /**
   * Only for enrollment refusals: the setup page relays the hub's own status (404 unknown
   * code, 410 expired, 409 bound elsewhere) instead of one status per code.
   */
  status?: number;
}

export class ApplianceError extends Error {
  override name = 'ApplianceError';
  readonly code: ApplianceErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly #status: number | undefined;
  constructor(code: ApplianceErrorCode, message: string, options: ApplianceErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.headers = options.headers ?? {};
    this.#status = options.status;
  }
  get status(): number {
    if (this.#status !== undefined) return this.#status;
    // A hub refusal relayed without the hub's status: the hub failed us, a bad gateway.
    return isRefusalReason(this.code) ? 502 : APPLIANCE_ERROR_STATUS[this.code];
  }
}

/** A vault or key store failure (one of VAULT_ERROR_CODES). */
export const isVaultError = (error: unknown): error is ApplianceError & { code: VaultErrorCode } =>
  error instanceof ApplianceError && (VAULT_ERROR_CODES as readonly string[]).includes(error.code);

/** The camera HTTP failures (cameras/http/transport.ts); all but an oversized answer are worth one retry. */
export const CAMERA_HTTP_ERROR_CODES = [
  'timeout',
  'body_too_large',
  'connect_failed',
  'request_failed',
] as const satisfies readonly (keyof typeof APPLIANCE_ERROR_STATUS)[];
export type CameraHttpErrorCode = (typeof CAMERA_HTTP_ERROR_CODES)[number];
export const isTransient = (error: unknown): boolean => !(error instanceof ApplianceError && error.code === 'body_too_large');
export const isSinkRefused = (error: unknown): error is ApplianceError => error instanceof ApplianceError && error.code === 'sink_refused';
