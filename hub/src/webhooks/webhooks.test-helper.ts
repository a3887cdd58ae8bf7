/**
 * Test helpers for webhooks: a real HTTP receiver on loopback that verifies every request's
 * signature with its own implementation of the Standard Webhooks rule (not sign.ts), and
 * answers as told (200, 500, or never). Not imported by production code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase, type TestHandle } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';

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

/**
 * A hub on loopback over a fresh test database, with a movable clock, a user, and one
 * watchlist holding `plates`: the world the alert-webhook tests start from.
 */
export async function hubWithWatchlist(t: TestHandle, list: { name: string; priority: 'low' | 'medium' | 'high' | 'critical'; plates: readonly string[] }) {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db });
  t.teardown(() => hub.close());
  const clock = movableClock(new Date());
  const ctx = { db, clock, log: createLog('silent'), config: hub.deps.config };
  const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
  const watchlist = await createWatchlist(ctx, actor, { name: list.name, priority: list.priority });
  for (const plate of list.plates) await addEntry(ctx, actor, watchlist.id, { plate });
  return { db, hub, clock, ctx, actor, list: watchlist };
}
