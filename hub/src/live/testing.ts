/**
 * A real WebSocket client for live-channel tests: collects every message, waits for one of
 * a type, reports the close code or the refused upgrade's status. Not production code.
 */
import WebSocket from 'ws';

export interface TestClient {
  ws: WebSocket;
  messages: Array<{ type: string; payload: Record<string, any>; timestamp: string; id: string }>;
  /** Resolves with the next message of `type` not yet returned (waits up to `timeoutMs`). */
  next(type: string, timeoutMs?: number): Promise<{ type: string; payload: Record<string, any>; timestamp: string; id: string }>;
  /** Messages of `type` seen so far. */
  all(type: string): Array<{ type: string; payload: Record<string, any> }>;
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
      messages.push(JSON.parse(data.toString()) as TestClient['messages'][number]);
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
        all: (type) => messages.filter((m) => m.type === type),
        next: (type, timeoutMs = 5_000) =>
          new Promise((res, rej) => {
            const deadline = setTimeout(() => rej(new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(messages.map((m) => m.type))}`)), timeoutMs);
            const look = (): void => {
              const i = messages.findIndex((m, idx) => m.type === type && !taken.has(idx));
              if (i >= 0) {
                taken.add(i);
                clearTimeout(deadline);
                res(messages[i] as TestClient['messages'][number]);
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
