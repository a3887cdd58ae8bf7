/**
 * The live channel's wire format (docs/live.md). Pure:
 * envelopes, client-message parsing and feed rules, with no sockets.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { UserRole } from '../db/schema/users.ts';
import { UUID_PATTERN } from '@alpr/shared/validation/uuid';

export const PROTOCOL_VERSION = 1;

export type ServerMessageType =
  'connected' | 'detection' | 'alert' | 'alert_verification' | 'collector_status' | 'health_alert' | 'ping' | 'subscribed' | 'unsubscribed' | 'error';

export interface Envelope {
  type: ServerMessageType;
  payload: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  id: string;
}

/** One server message. `id` is the event's own id when it has one (so repeats are recognisable). */
export function envelope(type: ServerMessageType, payload: Record<string, unknown>, now: Date, id: string = randomUUID()): Envelope {
  return { type, payload, timestamp: now.toISOString(), id };
}

export const FEED_ALL_ALERTS = 'alerts:*';
export const FEED_DETECTIONS = 'detections:live';
export const FEED_COLLECTORS = 'collectors:status';
const WATCHLIST_FEED = new RegExp(`^alerts:(${UUID_PATTERN.source.slice(1, -1)})$`, 'i');

export type Feed = { kind: 'all_alerts' } | { kind: 'watchlist_alerts'; watchlistId: string } | { kind: 'detections' } | { kind: 'collectors' };

export function parseFeed(name: string): Feed | undefined {
  if (name === FEED_ALL_ALERTS) return { kind: 'all_alerts' };
  if (name === FEED_DETECTIONS) return { kind: 'detections' };
  if (name === FEED_COLLECTORS) return { kind: 'collectors' };
  const match = WATCHLIST_FEED.exec(name);
  return match?.[1] ? { kind: 'watchlist_alerts', watchlistId: match[1].toLowerCase() } : undefined;
}

/** Feeds a connection starts with: every alert of the user's subscriptions; admins also collector status. */
export function defaultFeeds(role: UserRole): string[] {
  return role === 'admin' ? [FEED_ALL_ALERTS, FEED_COLLECTORS] : [FEED_ALL_ALERTS];
}

const feedName = z.string().min(1).max(100);
export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('pong'), payload: z.record(z.string(), z.unknown()).optional() }).passthrough(),
  z.object({ type: z.literal('subscribe'), payload: z.object({ feed: feedName }).passthrough() }).passthrough(),
  z.object({ type: z.literal('unsubscribe'), payload: z.object({ feed: feedName }).passthrough() }).passthrough(),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/**
 * The error codes of the live channel, exactly as clients written to the protocol expect them
 * in an `error` message's `payload.code`. Nothing else ever goes in `code`.
 */
export const LIVE_ERROR_CODES = ['AUTH_FAILED', 'AUTH_REQUIRED', 'SUBSCRIPTION_DENIED', 'INVALID_MESSAGE', 'RATE_LIMITED', 'INTERNAL_ERROR'] as const;
export type LiveErrorCode = (typeof LIVE_ERROR_CODES)[number];

/**
 * Our finer distinction under some codes, sent beside `code` as `payload.reason` (docs/live.md
 * "Errors"): a client that knows only the codes loses nothing, one that wants to say more
 * (an unknown feed vs a feed for admins) can. A code with reasons always carries one.
 */
export const LIVE_ERROR_REASONS = {
  AUTH_REQUIRED: [],
  AUTH_FAILED: ['invalid_token', 'user_inactive', 'session_ended', '2fa_required', '2fa_enrollment_required', 'password_change_required'],
  SUBSCRIPTION_DENIED: ['unknown_feed', 'admin_only', 'watchlist_not_subscribed'],
  INVALID_MESSAGE: ['malformed', 'unknown_type', 'bad_payload'],
  RATE_LIMITED: ['too_many_messages', 'too_many_connections', 'detections_dropped'],
  INTERNAL_ERROR: [],
} as const satisfies Record<LiveErrorCode, readonly string[]>;
export type LiveErrorReason<C extends LiveErrorCode = LiveErrorCode> = (typeof LIVE_ERROR_REASONS)[C][number];

/** The payload of an `error` message: `code` and `message` always, `reason` where the code has reasons, `feed` when about one. */
export type LiveError = {
  [C in LiveErrorCode]: [LiveErrorReason<C>] extends [never]
    ? { code: C; message: string; feed?: string }
    : { code: C; reason: LiveErrorReason<C>; message: string; feed?: string };
}[LiveErrorCode];

export type ParsedClientMessage = { ok: true; message: ClientMessage } | { ok: false; error: LiveError };

const MALFORMED: LiveError = { code: 'INVALID_MESSAGE', reason: 'malformed', message: 'messages are JSON objects with a "type"' };

/** A text frame from a client: JSON, a known type, its payload's shape. */
export function parseClientMessage(text: string): ParsedClientMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: MALFORMED };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as { type?: unknown }).type !== 'string') {
    return { ok: false, error: MALFORMED };
  }
  const type = (raw as { type: string }).type;
  if (type !== 'pong' && type !== 'subscribe' && type !== 'unsubscribe') {
    return {
      ok: false,
      error: {
        code: 'INVALID_MESSAGE',
        reason: 'unknown_type',
        message: `unknown message type "${type.slice(0, 40)}": the client may send pong, subscribe, unsubscribe`,
      },
    };
  }
  const parsed = clientMessageSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, error: { code: 'INVALID_MESSAGE', reason: 'bad_payload', message: `${type}: payload must be { "feed": "<feed name>" }` } };
  }
  return { ok: true, message: parsed.data };
}

/** Close codes (RFC 6455 private range 4000-4999 for ours). */
export const CLOSE = {
  /** The 6th connection of a user. */
  tooManyConnections: 4008,
  /** Three pings went unanswered. */
  missedPongs: 4001,
  /** The client kept sending after being told it is over its rate. */
  clientFlood: 4029,
  /** Alerts could not be delivered fast enough: reconnect and catch up with GET /api/v1/alerts. */
  backlog: 1013,
  /** No session, or it is not (or no longer) good: at the upgrade, or at a ping (logout, expiry, deactivation). */
  sessionEnded: 4401,
  /** The server failed while opening the connection (RFC 6455 1011). */
  internalError: 1011,
  shuttingDown: 1001,
} as const;
