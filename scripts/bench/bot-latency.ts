/**
 * Messaging-bot latency (issue 15; docs/performance.md "Messaging bot"): from an alert's
 * creation to the `sendPhoto` arriving at the Bot API simulator, with the real hub ingest,
 * alert worker and delivery worker in this process over a production-configured PostgreSQL.
 * One watched plate with its crop per batch, a batch every 1.2 s (under the platform's 1
 * message a second across chats, so the token bucket never holds a message back).
 *
 *   DATABASE_URL=... npx tsx scripts/bench/bot-latency.ts [--samples 40]
 *
 * Two runs: aggregation off (HUB_TELEGRAM_AGGREGATE_SECONDS=0), the raw path; and the
 * default 5 s window, printed without the 5 s the window holds a lone alert back. Figures
 * carry the 1-minute load average.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAlertHooks } from '../../hub/src/alerts/hooks.ts';
import { startAlerts } from '../../hub/src/alerts/run.ts';
import { queueDeliveriesOnRaise } from '../../hub/src/messaging/delivery/enqueue.ts';
import { createUser } from '../../hub/src/auth/registration.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import { encodeBatch, sampleDetection, startTestHub } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { botApi } from '../../hub/src/messaging/bot-api.ts';
import { createDeliveryWorker } from '../../hub/src/messaging/delivery/worker.ts';
import { importEntries } from '../../hub/src/watchlists/entries.ts';
import { subscribe } from '../../hub/src/watchlists/subscriptions.ts';
import { createWatchlist } from '../../hub/src/watchlists/watchlists.ts';
import { jpegBytes } from '../simulators/plates.ts';
import { startBotApi } from '../simulators/telegram-bot-api.ts';
import { createBenchDatabase } from './bench-database.ts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '40' } } });
const SAMPLES = Number(args.samples);
const load = (): string => `load ${loadavg()[0]?.toFixed(2)}`;
function percentiles(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const p = (q: number) => (s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)] ?? NaN).toFixed(1).padStart(7);
  return `p50 ${p(50)} ms  p95 ${p(95)} ms  max ${(s.at(-1) ?? NaN).toFixed(1)} ms  (n=${s.length})`;
}

const bench = await createBenchDatabase(process.env['DATABASE_URL'], 'alpr_bench_bot', 'npm run bench starts a production-configured server');
console.log(`PostgreSQL settings: ${await bench.settings(['fsync', 'synchronous_commit', 'full_page_writes'])}`);
const log = createLog('error', process.stderr);
const db = await openDatabase({ url: bench.url, log: createLog('silent'), maxConnections: 10 });
const hub = await startTestHub({ db });
const sim = await startBotApi();
const hooks = createAlertHooks();
queueDeliveriesOnRaise(hooks, { cooldownMs: 0 });
const alerts = await startAlerts({ db, clock: systemClock, log }, { lockTimeoutMs: 30_000, hooks });
try {
  const user = await createUser(hub.deps, { email: 'op@bench.test', password: 'bench correct horse battery staple', role: 'operator' });
  if (!user) throw new Error('user exists');
  const actor = { userId: user.id, ip: null, userAgent: null };
  const ctx = { db, clock: systemClock, log };
  const list = await createWatchlist(ctx, actor, { name: 'Bench wanted' });
  const plates = Array.from({ length: SAMPLES * 2 }, (_, i) => `BL${String(i).padStart(4, '0')}`);
  await importEntries(ctx, actor, list.id, `plate\n${plates.join('\n')}\n`);
  await subscribe(ctx, actor, list.id);
  await db.sql('INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, 9001)', [user.id]);
  alerts.cache.invalidate();

  for (const [label, windowMs, count, offset] of [
    ['aggregation off', 0, SAMPLES, 0],
    ['aggregation 5 s (lone alerts; the 5 s hold subtracted)', 5000, Math.ceil(SAMPLES / 4), SAMPLES],
  ] as const) {
    const worker = createDeliveryWorker(
      { db, clock: systemClock, log, api: botApi(sim.url, sim.token), image: (sha) => hub.deps.images.get(sha) },
      { windowMs, publicUrl: 'http://127.0.0.1:1', lockTimeoutMs: 30_000 },
    );
    await worker.start(db.listen.bind(db));
    const latencies: number[] = [];
    const endToEnd: number[] = [];
    for (let i = 0; i < count; i++) {
      const plate = plates[offset + i] as string;
      const { body, contentType } = encodeBatch([
        { detection: sampleDetection({ plate: { text: plate, confidence: 0.9 } }), plateCrop: jpegBytes(Math.random, 20_000) },
      ]);
      const res = await fetch(`${hub.url}${BATCH_PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': hub.apiKey, 'content-type': contentType },
        body: new Uint8Array(body),
      });
      if (res.status !== 201) throw new Error(`batch ${res.status}`);
      const stored = Date.now();
      const deadline = Date.now() + 30_000;
      let sent: (typeof sim.sent)[number] | undefined;
      while (!(sent = sim.sent.find((m) => m.text.includes(`${plate} on`))) && Date.now() < deadline) await sleep(5);
      if (!sent || sent.method !== 'sendPhoto') throw new Error(`no photo for ${plate}`);
      const [alert] = await db.sql<{ created_at: Date }>(
        `SELECT a.created_at FROM alerts a JOIN detection_keys k ON k.detection_pk = a.detection_id JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at WHERE d.plate_number = $1`,
        [plate],
      );
      if (!alert) throw new Error(`no alert for ${plate}`);
      latencies.push(sent.at - new Date(alert.created_at).getTime() - windowMs);
      endToEnd.push(sent.at - stored - windowMs);
      await sleep(Math.max(0, 1200 - (Date.now() - sent.at)));
    }
    await worker.stop();
    console.log(`alert -> sendPhoto, ${label}: ${percentiles(latencies)}  ${load()}`);
    console.log(`batch stored (201) -> sendPhoto, ${label}: ${percentiles(endToEnd)}  ${load()}`);
  }
} finally {
  await alerts.stop();
  await sim.close();
  await hub.close();
  await db.close();
  await bench.drop();
}
