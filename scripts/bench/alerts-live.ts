/**
 * Alert and live-channel benchmark (issue 11; docs/performance.md "Alerts and live channel"):
 * the real hub app, alert worker, watchlist cache and live channel in this process over a
 * production-configured PostgreSQL, HTTP and WebSocket on 127.0.0.1.
 *
 *   DATABASE_URL=... npx tsx scripts/bench/alerts-live.ts [--alerts 500] [--clients 1000] [--batches 200]
 *
 * 1. Alert latency: one collector posts batches of 50 detections (no images), one of them a
 *    watched plate; from each batch POST's 201 to the subscribed operator's `alert` frame.
 * 2. Live fan-out: N WebSocket clients (in a child process, so their parsing is not the
 *    hub's) on `detections:live`; from each one-detection batch's 201 to every client's
 *    `detection` frame; the hub process's RSS with them connected.
 * 3. With `--scoped-lists 50`: the alert latency again, in pairs of rounds, without and with
 *    50 active lists of mixed scopes (collectors, sites, direction, days and hours in a zone
 *    across midnight, allow-lists that never fire here, an ignore list attached), 100 plates
 *    each that the reads never hit, so the figure is the matcher's and the read lookup's cost
 *    (docs/watchlists.md "Scopes"). Rounds alternate so a drift in the machine's load falls
 *    on both sides.
 * Every figure is printed with the 1-minute load average beside it.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import { createHubApp } from '../../hub/src/app.ts';
import { startAlerts } from '../../hub/src/alerts/run.ts';
import { createUser } from '../../hub/src/auth/registration.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { claim } from '../../hub/src/collectors/claim.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { loadHubConfig } from '../../hub/src/platform/config/hub-config.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import { createBenchDatabase } from './bench-database.ts';
import type { HubDeps } from '../../hub/src/hub-deps.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLoadMonitor } from '../../hub/src/ingest/load-monitor.ts';
import { encodeBatch, sampleDetection } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createLiveBroker } from '../../hub/src/live/broker.ts';
import { attachLiveChannel } from '../../hub/src/live/upgrade.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { signInOverHttp } from '../../test/e2e/users-over-http.ts';
import { watchlistPartPath, WATCHLISTS_PATH } from '../../hub/src/platform/http/paths.ts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';
import { WATCHLIST_CHANNEL } from '../../hub/src/db/channels.ts';
import { createWatchlist } from '../../hub/src/watchlists/watchlists.ts';
import { importEntries } from '../../hub/src/watchlists/entries.ts';

/** One of the bench's mixed scopes (docs/watchlists.md "Scopes"), by list number. */
function mixedScope(i: number, collectorId: string, ignoreListId: string): Parameters<typeof createWatchlist>[2] {
  const base = { name: `Scoped ${i}` };
  switch (i % 5) {
    case 0:
      return {
        ...base,
        scope: {
          collectors: [collectorId],
          direction: 'entering',
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          hours: { from: '00:00', to: '00:00' },
          time_zone: 'Europe/Paris',
        },
      };
    case 1:
      return {
        ...base,
        scope: {
          sites: ['00000000-0000-0000-0000-000000000001'],
          days: ['mon', 'tue', 'wed', 'thu', 'fri'],
          hours: { from: '22:00', to: '06:00' },
          time_zone: 'Europe/Paris',
        },
      };
    case 2:
      // Evaluated for every read, never fires: its only camera sends nothing.
      return { ...base, mode: 'allow_list', scope: { cameras: [{ collector_id: collectorId, camera_id: 'bench-elsewhere' }] } };
    case 3:
      return { ...base, ignore_lists: [ignoreListId] };
    default:
      return { ...base, scope: { direction: 'exiting', hours: { from: '06:00', to: '22:00' }, time_zone: 'America/New_York' } };
  }
}

const { values: args } = parseArgs({
  options: {
    alerts: { type: 'string', default: '500' },
    clients: { type: 'string', default: '1000' },
    batches: { type: 'string', default: '200' },
    'scoped-lists': { type: 'string', default: '0' },
    pairs: { type: 'string', default: '5' },
  },
});
const ALERTS = Number(args.alerts);
const CLIENTS = Number(args.clients);
const FANOUT_BATCHES = Number(args.batches);
const SCOPED_LISTS = Number(args['scoped-lists']);
const PAIRS = Math.max(1, Number(args.pairs));
const now = (): number => performance.timeOrigin + performance.now();
const load = (): string => `load ${loadavg()[0]?.toFixed(2)}`;

function percentiles(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const p = (q: number) => (s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)] ?? NaN).toFixed(1).padStart(6);
  return `p50 ${p(50)} ms  p95 ${p(95)} ms  p99 ${p(99)} ms  max ${(s.at(-1) ?? NaN).toFixed(1)} ms  (n=${s.length})`;
}

async function main(): Promise<void> {
  const bench = await createBenchDatabase(process.env['DATABASE_URL'], 'alpr_bench', 'npm run bench starts a production-configured server');
  console.log(`PostgreSQL settings: ${await bench.settings(['fsync', 'synchronous_commit', 'full_page_writes'])}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-bench-live-'));
  const log = createLog('error', process.stderr);
  const db = await openDatabase({ url: bench.url, log: createLog('silent'), maxConnections: 10 });
  const config = loadHubConfig({ HUB_DATA_DIR: dataDir, HUB_SESSION_SECRET: randomBytes(32).toString('hex'), HUB_PUBLIC_URL: 'http://127.0.0.1:1' });
  const images = openImageStore(join(dataDir, 'images'), { db });
  const deps: HubDeps = { db, images, load: createLoadMonitor(() => 0), clock: systemClock, log, config };
  const server = serve({ fetch: createHubApp(deps).fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const broker = createLiveBroker(deps, { maxConnectionsPerUser: CLIENTS + 10 });
  await broker.start(db.listen.bind(db));
  const channel = attachLiveChannel(server, deps, broker);
  const alerts = await startAlerts({ db, clock: systemClock, log }, { lockTimeoutMs: 30_000 });
  const clientsProc = fork(join(import.meta.dirname, 'live-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const created = await createCollector(deps, SYSTEM_ACTOR, { siteName: 'Bench site' });
    const { api_key: apiKey, collector_id: collectorId } = await claim(
      deps,
      { claim_code: created.claimCode, hardware_id: `bench-${randomUUID()}` },
      '127.0.0.1',
    );
    const password = 'bench correct horse battery staple';
    await createUser(deps, { email: 'op@bench.test', password, role: 'operator' });
    const operator = await signInOverHttp(base, 'op@bench.test', password);
    const opRow = await db.sql<{ id: string }>(`SELECT id FROM users WHERE email = 'op@bench.test'`);
    const actor = { userId: opRow[0]?.id ?? '', ip: '127.0.0.1', userAgent: 'bench' };
    const list = (await (await operator.post(WATCHLISTS_PATH, { name: 'Bench' })).json()) as { id: string };
    const watched = Array.from({ length: ALERTS }, (_, i) => `BW${String(i).padStart(5, '0')}`);
    await fetch(`${base}${watchlistPartPath(list.id, 'import')}`, {
      method: 'POST',
      headers: { cookie: `${operator.cookie}; csrf_token=b`, 'x-csrf-token': 'b', 'content-type': 'text/csv' },
      body: `plate\n${watched.join('\n')}\n`,
    });
    await operator.post(watchlistPartPath(list.id, 'subscription'));
    const post = async (plates: readonly string[]): Promise<number> => {
      const { body, contentType } = encodeBatch(plates.map((text) => ({ detection: sampleDetection({ plate: { text, confidence: 0.9 } }) })));
      const res = await fetch(`${base}${BATCH_PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': contentType },
        body: new Uint8Array(body),
      });
      const at = now();
      if (res.status !== 201) throw new Error(`batch ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return at;
    };

    // 1. Alert latency (and 3. with scoped lists, in pairs).
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { cookie: operator.cookie } });
    const arrived = new Map<string, number>();
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; payload: { plate_number?: string } };
      if (m.type === 'alert' && m.payload.plate_number) arrived.set(m.payload.plate_number, now());
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const fromCreated: number[] = [];
    const fromStart: number[] = [];
    let early = 0;
    const measure = async (plates: readonly string[], into: number[], fromStartInto?: number[]): Promise<void> => {
      for (const plate of plates) {
        const i = watched.indexOf(plate);
        const batch = Array.from({ length: 50 }, (_, j) => (j === 25 ? plate : `BU${i}X${j}`));
        const started = now();
        const created201 = await post(batch);
        for (let wait = 0; !arrived.has(plate) && wait < 5_000; wait++) await new Promise((r) => setTimeout(r, 1));
        const at = arrived.get(plate);
        if (at === undefined) throw new Error(`no alert for ${plate}`);
        if (at < created201) early += 1;
        into.push(Math.max(0, at - created201));
        fromStartInto?.push(at - started);
      }
    };
    if (SCOPED_LISTS > 0) {
      const ignore = await createWatchlist(deps, actor, { name: 'Scoped ignore', kind: 'ignore' });
      await importEntries(deps, actor, ignore.id, `plate\n${Array.from({ length: 100 }, (_, j) => `IG${j}X`).join('\n')}\n`);
      for (let i = 0; i < SCOPED_LISTS; i++) {
        const list = await createWatchlist(deps, actor, mixedScope(i, collectorId, ignore.id));
        await importEntries(deps, actor, list.id, `plate\n${Array.from({ length: 100 }, (_, j) => `SC${i}X${j}`).join('\n')}\n`);
      }
      const setScoped = async (active: boolean): Promise<void> => {
        await db.sql(`UPDATE watchlists SET is_active = $1 WHERE name LIKE 'Scoped %'`, [active]);
        await db.sql(`SELECT pg_notify('${WATCHLIST_CHANNEL}', 'bench')`);
        await new Promise((r) => setTimeout(r, 200));
      };
      const per = Math.max(1, Math.floor(watched.length / (2 * PAIRS)));
      const plain: number[] = [];
      const scoped: number[] = [];
      for (let k = 0; k < PAIRS; k++) {
        const slice = watched.slice(2 * k * per, (2 * k + 2) * per);
        await setScoped(false);
        await measure(slice.slice(0, per), plain);
        await setScoped(true);
        await measure(slice.slice(per), scoped);
      }
      await setScoped(false);
      const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
      console.log(`alert latency, no scoped lists         ${percentiles(plain)}  ${load()}`);
      console.log(`alert latency, ${SCOPED_LISTS} mixed-scope lists   ${percentiles(scoped)}  ${load()}`);
      console.log(`scoped / plain, median 201 -> frame: ${(median(scoped) / median(plain)).toFixed(3)} (${PAIRS} pairs of ${per} alerts; target <= 1.10)`);
      ws.close();
      return;
    }
    await measure(watched, fromCreated, fromStart);
    ws.close();
    console.log(`alert latency, 201 -> WebSocket frame   ${percentiles(fromCreated)}  ${load()}`);
    console.log(`alert latency, POST sent -> frame       ${percentiles(fromStart)}  (${early} frames arrived before the 201 reached the client)  ${load()}`);

    // 2. Fan-out to N detections:live clients.
    const rssBefore = process.memoryUsage().rss;
    clientsProc.send({ start: { url: `${base.replace('http', 'ws')}/ws`, cookie: operator.cookie, count: CLIENTS } });
    await new Promise<void>((resolve, reject) =>
      clientsProc.once('message', (m: { ready?: boolean; error?: string }) => (m.ready ? resolve() : reject(new Error(m.error)))),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const rssWith = process.memoryUsage().rss;
    const sentAt = new Map<string, number>();
    for (let i = 0; i < FANOUT_BATCHES; i++) {
      const d = sampleDetection({ plate: { text: `FO${String(i).padStart(5, '0')}`, confidence: 0.9 } });
      const { body, contentType } = encodeBatch([{ detection: d }]);
      const res = await fetch(`${base}${BATCH_PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': contentType },
        body: new Uint8Array(body),
      });
      const at = now();
      const stored = (await res.json()) as { results?: Array<{ id?: string; status?: string }> };
      void stored;
      sentAt.set(d.detection_id, at);
      // 1,000 frames per detection: pace at 20 detections/s so the clients' process keeps up.
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 3_000));
    clientsProc.send({ report: true });
    const report = await new Promise<Record<string, number[]>>((resolve) =>
      clientsProc.once('message', (m: { arrivals: Record<string, number[]> }) => resolve(m.arrivals)),
    );
    // Map hub detection pks back to the 201 times via plate order: fetch id -> detection_id.
    const rows = await db.sql<{ id: string; detection_id: string }>('SELECT id::text AS id, detection_id FROM detections WHERE plate_number LIKE $1', ['FO%']);
    const latencies: number[] = [];
    let missing = 0;
    for (const r of rows) {
      const t201 = sentAt.get(r.detection_id);
      const got = report[r.id] ?? [];
      missing += CLIENTS - got.length;
      if (t201 !== undefined) for (const at of got) latencies.push(Math.max(0, at - t201));
    }
    console.log(`live fan-out to ${CLIENTS} clients, 201 -> frame  ${percentiles(latencies)}  frames missing ${missing}  ${load()}`);
    const rssAfter = process.memoryUsage().rss;
    console.log(
      `hub process RSS: ${(rssBefore / 1048576).toFixed(0)} MiB before the clients, ${(rssWith / 1048576).toFixed(0)} MiB with ${CLIENTS} connected, ${(rssAfter / 1048576).toFixed(0)} MiB after the fan-out  ${load()}`,
    );
    console.log(`worker: ${JSON.stringify(alerts.worker.stats())}; live: ${JSON.stringify(broker.stats())}`);
  } finally {
    clientsProc.send({ stop: true });
    await alerts.stop();
    await broker.stop();
    channel.close();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await images.close();
    await db.close();
    await bench.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
