/**
 * Reads per month kept for years (migration 0030, docs/transparency.md "Reads"): the health
 * evaluator drops hourly counts older than 5 weeks and folds them into monthly ones in the
 * same statement, so the public account's `reads` stays exact for months whose hours are gone
 * and whose non-hit reads tiered retention deleted. No detection is stored here at all: every
 * figure comes from the counts, as it would after the `24h` tier ran.
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { insertCollector } from '../db/fixtures.test-helper.ts';
import { pruneHealthCounts } from '../health/evaluate.ts';
import { KEEP_READ_HOURS_MS } from '../health/kinds.ts';
import type { PublicAccount } from './account.ts';

const ctx = await adminTestContext(t);
const db = ctx.deps.db;
ctx.deps.config.transparency = true;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = ctx.clock.now();
const north = await insertCollector(db, 'North gate');
const south = await insertCollector(db, 'South gate');

// Hours spread over the last 4 months, some older than 5 weeks, some newer, two cameras
// sharing one hour key, and the same camera several times in one month.
const hours: Array<{ ago: number; collector: string; camera: string; reads: number }> = [
  { ago: 100 * DAY, collector: north, camera: 'cam-1', reads: 7 },
  { ago: 100 * DAY - HOUR, collector: north, camera: 'cam-1', reads: 5 },
  { ago: 100 * DAY, collector: south, camera: 'cam-1', reads: 13 },
  { ago: 70 * DAY, collector: north, camera: 'cam-2', reads: 11 },
  { ago: 45 * DAY, collector: south, camera: 'cam-9', reads: 3 },
  { ago: 20 * DAY, collector: north, camera: 'cam-1', reads: 19 },
  { ago: 2 * DAY, collector: south, camera: 'cam-9', reads: 23 },
];
const expected = new Map<string, { reads: number; cameras: Set<string> }>();
for (const h of hours) {
  const hour = new Date(Math.floor((now.getTime() - h.ago) / HOUR) * HOUR);
  await db.sql(`INSERT INTO camera_read_hours (collector_id, camera_id, hour, reads) VALUES ($1, $2, $3, $4)`, [
    h.collector,
    h.camera,
    hour.toISOString(),
    h.reads,
  ]);
  const month = hour.toISOString().slice(0, 7);
  const m = expected.get(month) ?? { reads: 0, cameras: new Set<string>() };
  m.reads += h.reads;
  m.cameras.add(`${h.collector}/${h.camera}`);
  expected.set(month, m);
}
const total = hours.reduce((n, h) => n + h.reads, 0);

async function account(): Promise<Map<string, { reads: number; cameras: number }>> {
  ctx.clock.advance(61_000); // past the account's one-minute cache
  const res = await send(ctx, null, 'GET', '/transparency.json');
  if (res.status !== 200) throw new Error(`transparency.json answered ${res.status}`);
  return new Map(((await res.json()) as PublicAccount).months.map((m) => [m.month, { reads: m.reads, cameras: m.cameras }]));
}
const counted = async (table: 'camera_read_hours' | 'camera_read_months'): Promise<number> =>
  Number((await db.sql<{ n: string | null }>(`SELECT sum(reads)::bigint AS n FROM ${table}`))[0]?.n ?? 0);

t.test('the prune folds old hours into months: every month stays exact', async (t) => {
  const before = await account();
  await pruneHealthCounts(db, ctx.clock.now());
  const cutoff = ctx.clock.now().getTime() - KEEP_READ_HOURS_MS;
  const [oldest] = await db.sql<{ oldest: Date | string | null }>(`SELECT min(hour) AS oldest FROM camera_read_hours`);
  t.ok(oldest?.oldest && new Date(oldest.oldest).getTime() >= cutoff, 'no hour older than 5 weeks is left');
  const folded = hours.filter((h) => now.getTime() - h.ago < cutoff - HOUR).reduce((n, h) => n + h.reads, 0);
  t.equal(await counted('camera_read_months'), folded, `the dropped hours' ${folded} reads are in the months`);
  t.equal((await counted('camera_read_hours')) + (await counted('camera_read_months')), total, 'nothing lost, nothing doubled');
  const after = await account();
  for (const [month, m] of expected) {
    t.equal(after.get(month)?.reads, m.reads, `${month}: ${m.reads} reads, as before the prune (${before.get(month)?.reads})`);
    t.equal(after.get(month)?.cameras, m.cameras.size, `${month}: ${m.cameras.size} cameras`);
  }
});

t.test('pruning again, or later when every hour is gone, changes no month', async (t) => {
  await pruneHealthCounts(db, ctx.clock.now());
  await pruneHealthCounts(db, new Date(ctx.clock.now().getTime() + 10 * 7 * DAY));
  t.equal(await counted('camera_read_hours'), 0, 'every hour folded');
  t.equal(await counted('camera_read_months'), total, `all ${total} reads in the months, once`);
  const after = await account();
  for (const [month, m] of expected) t.equal(after.get(month)?.reads, m.reads, `${month}: still ${m.reads}`);
});
