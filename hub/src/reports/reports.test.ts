import t from 'tap';
import type { CollectorContext } from '../collectors/context.ts';
import { heartbeat } from '../collectors/heartbeat.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from '../db/fixtures.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { BarChart, barHeights } from './charts.tsx';
import { alertsPerDay, collectorHealth, detectionsPerHour } from './queries.ts';
import { fillSeries, groupBy } from './series.ts';

const HOUR = 3_600_000;

t.test('series: missing slots are zero, the last slot holds now', async (t) => {
  const now = new Date('2026-11-25T10:30:00Z');
  const at = (h: number) => Date.UTC(2026, 10, 25, h);
  t.same(
    fillSeries(
      [
        { at: at(10), value: 3 },
        { at: at(8), value: 1 },
        { at: at(8), value: 1 },
      ],
      now,
      HOUR,
      4,
    ),
    [
      { at: at(7), value: 0 },
      { at: at(8), value: 2 },
      { at: at(9), value: 0 },
      { at: at(10), value: 3 },
    ],
  );
  t.same(
    groupBy(
      [
        { k: 'b', n: 1 },
        { k: 'a', n: 5 },
        { k: 'b', n: 1 },
      ],
      (r) => r.k,
      (rows) => rows.reduce((s, r) => s + r.n, 0),
    ).map((g) => g.key),
    ['a', 'b'],
    'heaviest first',
  );
  t.same(
    barHeights(
      [
        { at: 0, value: 0 },
        { at: 1, value: 5 },
        { at: 2, value: 10 },
      ],
      100,
    ),
    [1, 50, 100],
    'proportional; zero is a 1-pixel baseline',
  );
  const svg = String(
    BarChart({
      id: 'x',
      title: 'Per hour',
      points: [
        { at: at(9), value: 2 },
        { at: at(10), value: 4 },
      ],
      label: (a) => String(new Date(a).getUTCHours()),
      describe: (p) => `${new Date(p.at).getUTCHours()}h ${p.value}`,
    }),
  );
  t.match(svg, /<title id="x-title">Per hour<\/title><desc id="x-desc">9h 2; 10h 4<\/desc>/, 'described for screen readers');
  t.equal(svg.match(/<rect /g)?.length, 2);
});

t.test('report figures from the database', async (t) => {
  const db = await testDatabase(t);
  const now = new Date();
  const north = await insertCollector(db, 'North');
  const south = await insertCollector(db, 'South');
  await appendChainedDetections(
    db,
    north,
    [0, 0, 1].map((h) => sampleDetection(north, { capturedAt: new Date(now.getTime() - 1000 - h * HOUR) })),
  );
  await appendChainedDetections(db, south, [sampleDetection(south, { capturedAt: new Date(now.getTime() - 30 * HOUR) })]);
  const perHour = await detectionsPerHour(db, now);
  t.same(
    perHour.map((r) => [r.siteName, r.count]).sort(),
    [
      ['North', 1],
      ['North', 2],
    ],
    'per collector and hour; the read 30 hours ago is outside the 24',
  );

  const [user] = await db.sql<{ id: string }>(`INSERT INTO users (email, password_hash, role) VALUES ('r@example.test', 'x', 'admin') RETURNING id`);
  const [list] = await db.sql<{ id: string }>(`INSERT INTO watchlists (created_by, name) VALUES ($1, 'L') RETURNING id`, [user?.id]);
  const [det] = await db.sql<{ id: string }>('SELECT id::text AS id FROM detections ORDER BY detections.id LIMIT 1');
  await db.sql('INSERT INTO alerts (detection_id, watchlist_id, created_at) VALUES ($1, $2, $3)', [det?.id, list?.id, now]);
  t.match(await alertsPerDay(db, now), [{ count: 1 }]);

  const ctx: CollectorContext = { db, clock: { now: () => now }, log: createLog('silent'), config: loadHubConfig({}) };
  await db.sql(`UPDATE collectors SET status = 'active'`);
  for (const [depth, online] of [
    [3, 2],
    [9, 1],
    [0, 2],
  ] as const) {
    await heartbeat(ctx, north, { uptime_seconds: 3600, queue_depth: depth, cameras_online: online, cameras_total: 2, config_version: 1 });
  }
  t.match(
    await collectorHealth(db, now),
    [{ siteName: 'North', heartbeats: 3, maxQueueDepth: 9, minCamerasOnline: 1, camerasTotal: 2 }],
    'heartbeats folded per hour',
  );
  // A restart: its heartbeats under one interval of uptime have not reached the cameras yet.
  await heartbeat(ctx, north, { uptime_seconds: 5, queue_depth: 0, cameras_online: 0, cameras_total: 2, config_version: 1 });
  await heartbeat(ctx, north, { uptime_seconds: 59, queue_depth: 0, cameras_online: 0, cameras_total: 2, config_version: 1 });
  t.match(await collectorHealth(db, now), [{ heartbeats: 5, minCamerasOnline: 1 }], 'the warm-up is not an outage');
  await heartbeat(ctx, north, { uptime_seconds: 60, queue_depth: 0, cameras_online: 0, cameras_total: 2, config_version: 1 });
  t.match(await collectorHealth(db, now), [{ heartbeats: 6, minCamerasOnline: 0 }], 'a camera still down after it is');
  const [claimed] = await db.sql<{ claimed_at: Date | null }>('SELECT claimed_at FROM collectors WHERE id = $1', [north]);
  t.match(
    await collectorHealth(db, now),
    [{ claimedAt: claimed?.claimed_at ? new Date(claimed.claimed_at).getTime() : null, config: {} }],
    'with what the share needs',
  );
});
