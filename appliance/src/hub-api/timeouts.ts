import type { CallTimeouts } from '@alpr/shared/http/timeouts';

/**
 * How long each kind of hub call may take, decided in one place (the response size caps
 * beside them: a reply far over them is not our hub).
 */

/** 10 s: the hub answers a heartbeat in milliseconds; a stalled link must not hold the loop for long. */
export const HEARTBEAT_TIMEOUTS: CallTimeouts = { headersMs: 10_000, bodyMs: 10_000 };
/** 20 commands of a few KB each. */
export const HEARTBEAT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** 15 s: a claim is one transaction on the hub; longer means the hub is not reachable. */
export const ENROLL_TIMEOUTS: CallTimeouts = { headersMs: 15_000, bodyMs: 15_000 };
export const ENROLL_MAX_RESPONSE_BYTES = 256 * 1024;

/**
 * 30 s: a 5 MB batch on a 2 Mbit/s site uplink takes ~20 s; the hub answers in < 100 ms.
 * The default of the uplink's configurable timeouts (uplink/config.ts).
 */
export const DEFAULT_UPLOAD_TIMEOUTS: CallTimeouts = { headersMs: 30_000, bodyMs: 30_000 };
/** A results array for 500 items is ~60 KB. */
export const UPLOAD_MAX_RESPONSE_BYTES = 1024 * 1024;
