/**
 * One live connection (docs/live.md "Connection rules"): its user and feeds, the ping
 * schedule and missed pongs, the client's message rate (10 a second) and the outgoing queue
 * (100 a second, outbox.ts). The broker decides what to send; this decides when and how.
 */
import type { WebSocket } from 'ws';
import { takeToken } from '@alpr/shared/rate-limit/index';
import type { SessionUser } from '../auth/middleware.ts';
import type { Log } from '../platform/log.ts';
import { Outbox, type QueuedMessage } from './outbox.ts';
import { CLOSE, envelope, parseClientMessage, type ClientMessage, type LiveError, type ServerMessageType } from './protocol.ts';

export const CLIENT_MESSAGES_PER_SECOND = 10;
/** Refused messages in a row before the connection is closed: a client that ignores RATE_LIMITED. */
const FLOOD_STRIKES = 50;
const MISSED_PONGS_TO_CLOSE = 3;

export interface ConnectionOptions {
  pingIntervalMs: number;
  now: () => Date;
  log: Log;
  /** Handles subscribe/unsubscribe (the broker knows what a user may see). */
  onMessage: (connection: LiveConnection, message: ClientMessage) => Promise<void>;
  /** Re-checks the session at each ping: why it can no longer be used (logout, expiry, deactivation), or undefined while it is good. */
  sessionProblem: (user: SessionUser) => Promise<LiveError | undefined>;
  onClose: (connection: LiveConnection) => void;
}

export class LiveConnection {
  readonly feeds = new Set<string>();
  private readonly outbox = new Outbox();
  private flushTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  /** When the last ping went out, on the monotonic clock (the injected clock may stand still). */
  private pingSentAt = 0;
  /** A tick still waiting on its session check: the next one is skipped, not run beside it. */
  private ticking = false;
  private missedPongs = 0;
  private clientTat: number | null = null;
  private strikes = 0;
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly user: SessionUser,
    private readonly options: ConnectionOptions,
  ) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.error({ code: 'INVALID_MESSAGE', reason: 'malformed', message: 'messages are JSON text frames' });
        return;
      }
      void this.receive(data.toString());
    });
    ws.on('close', () => this.shutdown());
    ws.on('error', (err) => options.log.debug({ err, user_id: user.id }, 'live connection error'));
    this.pingTimer = setInterval(() => void this.tick(), options.pingIntervalMs);
    this.pingTimer.unref();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Serialized once by the broker for every recipient of the same event. */
  sendText(kind: QueuedMessage['kind'], text: string): void {
    if (this.closed) return;
    const offered = this.outbox.offer({ kind, text });
    if (offered === 'overflow') {
      // Alerts are never dropped in silence: the client reconnects and catches up.
      this.options.log.warn({ user_id: this.user.id }, 'live connection too slow for its alerts: closed (1013)');
      this.close(CLOSE.backlog, 'too many undelivered alerts: reconnect and fetch GET /api/v1/alerts?since=');
      return;
    }
    this.flush();
  }

  send(type: ServerMessageType, payload: Record<string, unknown>, id?: string): void {
    this.sendText('other', JSON.stringify(envelope(type, payload, this.options.now(), id)));
  }

  error(error: LiveError): void {
    this.send('error', { ...error });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason.slice(0, 120));
    this.shutdown();
  }

  private flush(): void {
    if (this.flushTimer || this.closed) return;
    const { messages, waitMs } = this.outbox.take(this.options.now().getTime());
    for (const m of messages) this.ws.send(m.text);
    const drops = this.outbox.takeUnreportedDrops();
    if (drops > 0) {
      this.ws.send(
        JSON.stringify(
          envelope(
            'error',
            {
              code: 'RATE_LIMITED',
              reason: 'detections_dropped',
              message: `${drops} detections were dropped: more than 100 messages a second`,
              feed: 'detections:live',
            } satisfies LiveError,
            this.options.now(),
          ),
        ),
      );
    }
    if (waitMs > 0) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, waitMs);
    }
  }

  private async receive(text: string): Promise<void> {
    const parsed = parseClientMessage(text);
    // The pong answering our own ping is traffic the server asked for, at most one per ping
    // interval: it never counts against the client's 10 a second. (Counted, a client that
    // answered every ping used up its budget by our schedule: on the tests' stopped clock the
    // budget never refills, and a slow run's extra pings drew RATE_LIMITED for its own
    // messages.) A pong nobody asked for counts like any other message.
    const answersPing = this.awaitingPong && parsed.ok && parsed.message.type === 'pong';
    if (!answersPing) {
      const decision = takeToken(this.clientTat, this.options.now().getTime(), { limit: CLIENT_MESSAGES_PER_SECOND, windowMs: 1000 });
      if (!decision.allowed) {
        this.strikes += 1;
        if (this.strikes >= FLOOD_STRIKES) {
          this.close(CLOSE.clientFlood, 'over 10 messages a second after being told');
          return;
        }
        this.error({ code: 'RATE_LIMITED', reason: 'too_many_messages', message: 'at most 10 messages a second; this one was ignored' });
        return;
      }
      this.clientTat = decision.nextTatMs;
      this.strikes = 0;
    }
    if (!parsed.ok) {
      this.error(parsed.error);
      return;
    }
    if (parsed.message.type === 'pong') {
      this.awaitingPong = false;
      this.missedPongs = 0;
      return;
    }
    try {
      await this.options.onMessage(this, parsed.message);
    } catch (err) {
      this.options.log.error({ err, user_id: this.user.id }, 'live message handling failed');
      this.error({ code: 'INTERNAL_ERROR', message: 'the server could not handle this message' });
    }
  }

  private async tick(): Promise<void> {
    if (this.closed || this.ticking) return;
    // A ping counts as missed only after a whole interval without its pong. Under load a
    // session check can take most of an interval, and ticks that overlapped it used to send
    // extra pings and count misses against a pong that had had no time to come back.
    if (this.awaitingPong && performance.now() - this.pingSentAt < this.options.pingIntervalMs * 0.9) return;
    this.ticking = true;
    try {
      await this.pingOrClose();
    } finally {
      this.ticking = false;
    }
  }

  private async pingOrClose(): Promise<void> {
    if (this.awaitingPong) {
      this.missedPongs += 1;
      if (this.missedPongs >= MISSED_PONGS_TO_CLOSE) {
        this.close(CLOSE.missedPongs, `${MISSED_PONGS_TO_CLOSE} pings without a pong`);
        return;
      }
    }
    // A failed check (the database away for a moment) keeps the connection: only a refusal ends it.
    const problem = await this.options.sessionProblem(this.user).catch(() => undefined);
    if (problem) {
      this.error(problem);
      this.close(CLOSE.sessionEnded, 'session ended');
      return;
    }
    if (this.closed) return;
    this.awaitingPong = true;
    this.pingSentAt = performance.now();
    this.send('ping', { server_time: this.options.now().toISOString() });
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.flushTimer);
    this.options.onClose(this);
  }
}
