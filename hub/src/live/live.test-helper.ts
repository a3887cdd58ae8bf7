/**
 * A real WebSocket client for live-channel tests: collects every message, waits for one of
 * a type, reports the close code or the refused upgrade's status. Not production code.
 */
import WebSocket from 'ws';
import type { AlertPayload } from '../alerts/payload.ts';
import type { DetectionPayload } from './detection-payload.ts';

/** Payload shapes the tests read field by field; every other message type is a plain record. */
interface Payloads {
  alert: AlertPayload;
  detection: DetectionPayload;
}
type PayloadOf<T extends string> = T extends keyof Payloads ? Payloads[T] : Record<string, unknown>;

export interface Message<T extends string = string> {
  type: T;
  payload: PayloadOf<T>;
  timestamp: string;
  id: string;
}

export interface TestClient {
  ws: WebSocket;
  messages: Message[];
  /** Resolves with the next message of `type` not yet returned (waits up to `timeoutMs`). */
  next<T extends string>(type: T, timeoutMs?: number): Promise<Message<T>>;
  /** Messages of `type` seen so far. */
  all<T extends string>(type: T): Message<T>[];
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

export function connect(url: string, headers: Record<string, string>): Promise<TestClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: TestClient['messages'] = [];
    const taken = new Set<number>();
    const waiters: Array<() => void> = [];
    ws.on('message', (data) => {
      messages.push(JSON.parse(data.toString()) as Message);
      for (const w of waiters.splice(0)) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.once('error', (err) => reject(err));
    ws.once('open', () =>
      resolve({
        ws,
        messages,
        closed,
        send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
        all: <T extends string>(type: T) => messages.filter((m) => m.type === type) as unknown as Message<T>[],
        next: <T extends string>(type: T, timeoutMs = 5_000) =>
          new Promise<Message<T>>((res, rej) => {
            const deadline = setTimeout(
              () =>
                rej(
                  new Error(
                    `no ${type} within ${timeoutMs} ms; got ${JSON.stringify(messages.map((m) => m.type))}; errors: ${JSON.stringify(messages.filter((m) => m.type === 'error').map((m) => m.payload))}`,
                  ),
                ),
              timeoutMs,
            );
            const look = (): void => {
              const i = messages.findIndex((m, idx) => m.type === type && !taken.has(idx));
              if (i >= 0) {
                taken.add(i);
                clearTimeout(deadline);
                res(messages[i] as unknown as Message<T>);
              } else waiters.push(look);
            };
            look();
          }),
      }),
    );
  });
}

/** The status a refused upgrade answered with. */
export async function refusedStatus(url: string, headers: Record<string, string>): Promise<number> {
  try {
    const client = await connect(url, headers);
    client.ws.close();
    return 101;
  } catch (err) {
    return (err as { status?: number }).status ?? 0;
  }
}

/** What a socket refused after the upgrade was told: its one `error` payload and the close. */
export async function refusedOverSocket(
  url: string,
  headers: Record<string, string>,
): Promise<{ error: Record<string, unknown>; close: number; messages: number }> {
  const client = await connect(url, headers);
  const error = await client.next('error');
  const { code } = await client.closed;
  return { error: error.payload, close: code, messages: client.messages.length };
}
