/**
 * At least once across a crash: the delivery worker runs in its own process and is killed
 * with SIGKILL while a request is in flight (the receiver holds it unanswered). A new worker
 * takes the claim back and sends it again under the same webhook-id, so the receiver, after
 * deduping by that id, has every alert exactly once. PostgreSQL only: two processes on one
 * database (PGlite is one process's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { someUser, uploadPlates } from '../alerts/alerts.test-helper.ts';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { systemClock } from '../platform/clock.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { queueWebhooksOnRaise } from './enqueue.ts';
import { createTarget } from './targets.ts';
import { startReceiver } from './webhooks.test-helper.ts';

const db = await testDatabase(t);
if (!db.url) {
  t.comment('PGlite: the SIGKILL case needs a second process on the database; run with DATABASE_URL');
} else {
  const url = db.url;
  const hub = await startTestHub({ db });
  t.teardown(() => hub.close());
  const ctx = { db, clock: systemClock, log: createLog('silent'), config: hub.deps.config };
  const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
  const list = await createWatchlist(ctx, actor, { name: 'Crash', priority: 'high' });
  const plates = ['KILL1', 'KILL2', 'KILL3', 'KILL4', 'KILL5'];
  for (const plate of plates) await addEntry(ctx, actor, list.id, { plate });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { row: target, secret } = await createTarget(ctx, { name: 'Crash receiver', url: receiver.url, events: ['alert'], filter: {}, enabled: true });
  receiver.secret = secret;
  const hooks = createAlertHooks();
  queueWebhooksOnRaise(hooks);
  const alertWorker = createAlertWorker(ctx, createWatchlistCache(ctx), { hooks });

  const children: ChildProcess[] = [];
  t.teardown(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  const startWorker = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./worker-process.test-helper.ts', import.meta.url))], {
      env: { ...process.env, DATABASE_URL: url, WEBHOOK_LOCK_TIMEOUT_MS: '1500' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
    return child;
  };

  t.test('SIGKILL mid-delivery: every alert once after dedupe, at least once in all', async (t) => {
    receiver.answer = 'hang';
    const first = await startWorker();
    await uploadPlates(hub, plates);
    while ((await alertWorker.runOnce()) > 0) {
      /* until every alert is raised (and its delivery queued) */
    }
    const [alerts] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM alerts`);
    t.equal(Number(alerts?.n), plates.length, 'one alert per plate');
    await receiver.waitFor(1);
    // The worker holds at least one request in flight: kill it there.
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const beforeRestart = receiver.received.length;
    t.ok(beforeRestart >= 1, `${beforeRestart} request(s) reached the receiver before the kill`);
    receiver.answer = 'ok';
    const second = await startWorker();
    await receiver.waitFor(plates.length + beforeRestart);
    const settled = async () =>
      Number((await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'sent'`))[0]?.n) === plates.length;
    while (!(await settled())) await new Promise((resolve) => setTimeout(resolve, 100));
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));

    t.ok(
      receiver.received.every((r) => r.verified),
      'every request verified',
    );
    const byId = new Map<string, string>();
    for (const r of receiver.received) byId.set(r.id, String((r.body.data['plate'] as { text: string }).text));
    t.same([...byId.values()].sort(), plates, 'after deduping by webhook-id: each alert exactly once');
    t.ok(receiver.received.length > byId.size, `the killed try was sent again under its id (${receiver.received.length} requests, ${byId.size} ids)`);
  });
}
