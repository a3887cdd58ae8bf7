import type { Backpressure, BatchItemResult } from '@alpr/shared/protocol/batch';
import { batchResponseSchema } from '@alpr/shared/protocol/batch';
import { SUSPENDED_RETRY_AFTER_SECONDS } from '@alpr/shared/protocol/collector';
import { collectorRefusalOf } from '../hub-api/refusal.ts';

/**
 * What one batch request came to, decided from status and body only (pure).
 * - accepted: 2xx with a valid `{ accepted, results }` body; act on the per-item results.
 * - key_rejected: 401; the key is wrong, revoked or expired: keep everything, back off.
 *   `reason: collector_replaced` when the hub says another device took this collector over.
 * - suspended: 403 with `error.reason: collector_suspended`: an admin suspended the site.
 *   Nothing is wrong with the items or the key: keep everything and ask again after the
 *   hub's Retry-After, at a steady pace (no backoff: the hub is answering, and growing the
 *   delay would only postpone noticing the resume).
 * - content_rejected: 400/413/415/422; the hub refuses this body. Something inside the
 *   batch is bad, so the caller splits it to find the poison item.
 * - retry: anything else (5xx, 429, other 4xx, 3xx, odd 2xx, unreadable body, network,
 *   timeout). Nothing is wrong with the items as far as we can tell: keep and back off.
 *   Other 4xx (403 without the suspended reason, 404, 405, 409...) land here on purpose:
 *   they say "wrong URL or wrong server", and splitting would end with every item marked rejected.
 */
export type UploadOutcome =
  | { kind: 'accepted'; status: number; results: BatchItemResult[]; backpressure?: Backpressure }
  | { kind: 'key_rejected'; status: 401; reason?: 'collector_replaced' }
  | { kind: 'suspended'; status: 403; retryAfterMs: number }
  | { kind: 'content_rejected'; status: number; reason: string }
  | { kind: 'retry'; status?: number; reason: string; retryAfterMs?: number };

export const CONTENT_REJECTED_STATUSES: ReadonlySet<number> = new Set([400, 413, 415, 422]);

/** Longest Retry-After we obey: a bad header must not park uploads for days. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Shortest wait between two attempts of a suspended collector. A Retry-After of 0 (or a date
 * in the past) from a suspended hub would turn the steady retry into a tight loop of 403s, so
 * it counts as a bad header and the contract's default applies.
 */
const MIN_SUSPENDED_RETRY_MS = 1_000;
export const DEFAULT_SUSPENDED_RETRY_MS = SUSPENDED_RETRY_AFTER_SECONDS * 1000;

/** The wait after a suspended answer: the hub's Retry-After, or 60 s when absent or unusable. */
export function suspendedRetryMs(retryAfter: string | undefined, nowMs: number): number {
  const ms = parseRetryAfter(retryAfter, nowMs);
  return ms === undefined || ms < MIN_SUSPENDED_RETRY_MS ? DEFAULT_SUSPENDED_RETRY_MS : ms;
}

/** Retry-After as delta seconds or an HTTP date, relative to `nowMs`. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** A short reason for logs and state, from `{ error: { message } }`, `{ detail }` or text. */
export function errorReason(status: number, bodyText: string): string {
  let reason = '';
  try {
    const body: unknown = JSON.parse(bodyText);
    if (typeof body === 'object' && body !== null) {
      const record = body as Record<string, unknown>;
      const error = record['error'];
      if (typeof error === 'object' && error !== null) {
        const message = (error as Record<string, unknown>)['message'];
        const code = (error as Record<string, unknown>)['code'];
        reason = [code, message].filter((v) => typeof v === 'string').join(': ');
      } else if (typeof record['detail'] === 'string') {
        reason = record['detail'];
      }
    }
  } catch {
    reason = bodyText.trim();
  }
  return `HTTP ${status}${reason ? `: ${reason.slice(0, 200)}` : ''}`;
}

export interface ReplyInput {
  status: number;
  bodyText: string;
  retryAfter?: string;
  nowMs: number;
}

export function classifyReply({ status, bodyText, retryAfter, nowMs }: ReplyInput): UploadOutcome {
  if (status === 201 || status === 202 || status === 200) {
    let json: unknown;
    try {
      json = JSON.parse(bodyText);
    } catch {
      return { kind: 'retry', status, reason: `HTTP ${status} with a body that is not JSON` };
    }
    const parsed = batchResponseSchema.safeParse(json);
    if (!parsed.success) {
      return { kind: 'retry', status, reason: `HTTP ${status} with a malformed batch response` };
    }
    const { results, backpressure } = parsed.data;
    return backpressure ? { kind: 'accepted', status, results, backpressure } : { kind: 'accepted', status, results };
  }
  if (status === 401) {
    return collectorRefusalOf(bodyText) === 'collector_replaced'
      ? { kind: 'key_rejected', status, reason: 'collector_replaced' }
      : { kind: 'key_rejected', status };
  }
  if (status === 403 && collectorRefusalOf(bodyText) === 'collector_suspended') {
    return { kind: 'suspended', status, retryAfterMs: suspendedRetryMs(retryAfter, nowMs) };
  }
  if (CONTENT_REJECTED_STATUSES.has(status)) {
    return { kind: 'content_rejected', status, reason: errorReason(status, bodyText) };
  }
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter, nowMs) : undefined;
  const reason = errorReason(status, bodyText);
  return retryAfterMs === undefined ? { kind: 'retry', status, reason } : { kind: 'retry', status, reason, retryAfterMs };
}
