/**
 * Test helpers for webhooks: a real HTTP receiver on loopback that verifies every request's
 * signature with its own implementation of the Standard Webhooks rule (not sign.ts), and
 * answers as told (200, 500, or never). Not imported by production code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  id: string;
  timestamp: number;
  verified: boolean;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
}

export type Answer = 'ok' | 'error' | 'hang';

/** The receiver side of the layout, written from its description: base64 secret after `whsec_`. */
export function verify(secret: string, headers: IncomingMessage['headers'], raw: string): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${raw}`).digest();
  return sigs.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered. */
  answer: Answer;
  secret: string;
  /** Resolves once `n` requests have arrived in all. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiting: { n: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: 'ok',
    secret: '',
    waitFor: (n) =>
      new Promise((resolve) => {
        if (receiver.received.length >= n) resolve();
        else waiting.push({ n, resolve });
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      receiver.received.push({
        id: String(req.headers['webhook-id']),
        timestamp: Number(req.headers['webhook-timestamp']),
        verified: verify(receiver.secret, req.headers, raw),
        body: JSON.parse(raw) as Received['body'],
      });
      for (const w of waiting.filter((w) => receiver.received.length >= w.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
      if (receiver.answer === 'hang') hanging.push(res);
      else if (receiver.answer === 'error') res.writeHead(500).end('receiver broke');
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
