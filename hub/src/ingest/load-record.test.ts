/**
 * Upload counts held in memory and written in one upsert (load-record.ts), on a real database:
 * sums per collector and minute, the timer, a failed write given back, a removed collector,
 * adds during a write, and stop.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import type { StatementSession } from '../db/session.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { createLog } from '../platform/log.ts';
import { createUploadLoad } from './load-record.ts';

const db = await testDatabase(t);
const clock = movableClock(new Date('2026-01-15T10:00:10.000Z'));
const log = createLog('silent');
const ctx = { db, clock, log, config: loadHubConfig({ HUB_LOG_LEVEL: 'silent' }) };
const newCollector = async (name: string) => (await createCollector(ctx, SYSTEM_ACTOR, { siteName: name })).collectorId;

type Row = {
  minute: string;
  requests: number;
  failed_requests: number;
  items: number;
  rejected_items: number;
  max_batch_items: number;
  max_request_bytes: string;
};
const rowsOf = (collectorId: string) =>
  db.sql<Row>(
    `SELECT to_char(minute AT TIME ZONE 'UTC', 'HH24:MI') AS minute, requests, failed_requests, items, rejected_items, max_batch_items, max_request_bytes::text
       FROM collector_load_minutes WHERE collector_id = $1::uuid ORDER BY minute`,
    [collectorId],
  );
const batch = (items: number, bytes = 1_000) => ({ items, rejectedItems: 0, failed: false, bytes });
const until = async (what: string, check: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

t.test('sums per collector and minute, nothing written before the flush, added to rows already there', async (t) => {
  const a = await newCollector('Load A');
  const b = await newCollector('Load B');
  const load = createUploadLoad({ db, clock, log }, 60_000);
  t.teardown(() => load.stop());
  clock.set(new Date('2026-01-15T10:00:10.000Z'));
  load.add(a, batch(50, 4_000));
  load.add(a, { items: 0, rejectedItems: 0, failed: true, bytes: 11_000_000 });
  load.add(a, { items: 120, rejectedItems: 3, failed: false, bytes: 9_000 });
  load.add(b, batch(5));
  clock.advance(60_000);
  load.add(a, batch(10));
  t.same(await rowsOf(a), [], 'held in memory');
  await load.flush();
  t.same(await rowsOf(a), [
    { minute: '10:00', requests: 3, failed_requests: 1, items: 170, rejected_items: 3, max_batch_items: 120, max_request_bytes: '11000000' },
    { minute: '10:01', requests: 1, failed_requests: 0, items: 10, rejected_items: 0, max_batch_items: 10, max_request_bytes: '1000' },
  ]);
  t.same(
    (await rowsOf(b)).map((r) => [r.minute, r.requests, r.items]),
    [['10:00', 1, 5]],
  );
  load.add(a, batch(200, 500));
  await load.flush();
  t.same((await rowsOf(a))[1], {
    minute: '10:01',
    requests: 2,
    failed_requests: 0,
    items: 210,
    rejected_items: 0,
    max_batch_items: 200,
    max_request_bytes: '1000',
  });
  await load.flush();
  t.equal((await rowsOf(a))[1]?.requests, 2, 'a flush with nothing held writes nothing');
});

t.test('the timer writes a second after the first count, without a flush', async (t) => {
  const a = await newCollector('Load timer');
  const load = createUploadLoad({ db, clock, log }, 50);
  t.teardown(() => load.stop());
  load.add(a, batch(7));
  await until('the timed write', async () => (await rowsOf(a)).length === 1);
  load.add(a, batch(8));
  await until('the second timed write', async () => (await rowsOf(a))[0]?.items === 15);
  t.pass('two writes, each on its own timer');
});

t.test('a failed write gives its sums back; minutes past the longest window are dropped and said', async (t) => {
  const a = await newCollector('Load outage');
  let failing = true;
  const flaky: StatementSession = {
    ...db,
    sql: (text, params, options) => (failing ? Promise.reject(new Error('connection refused')) : db.sql(text, params, options)),
  } as StatementSession;
  const warnings: Array<Record<string, unknown>> = [];
  const infos: string[] = [];
  const spy = { warn: (o: Record<string, unknown>) => void warnings.push(o), info: (message: string) => void infos.push(message) } as unknown as typeof log;
  const load = createUploadLoad({ db: flaky, clock, log: spy }, 60_000);
  t.teardown(() => load.stop());
  clock.set(new Date('2026-01-15T11:00:00.000Z'));
  load.add(a, batch(10));
  await load.flush();
  t.equal(warnings.length, 1, 'said once');
  t.notOk('dropped_requests' in (warnings[0] ?? {}), 'nothing dropped yet');
  clock.advance(10 * 60_000);
  load.add(a, batch(20));
  await load.flush();
  clock.advance(6 * 60_000);
  load.add(a, batch(30));
  await load.flush();
  t.equal(warnings.length, 2, 'the second failure in a row said nothing, the drop is said');
  t.equal(warnings[1]?.['dropped_requests'], 1, 'the 11:00 minute is older than 15 minutes: dropped');
  failing = false;
  await load.flush();
  t.same(infos, ['upload load recorded again'], 'the recovery is said once');
  t.same(
    (await rowsOf(a)).map((r) => [r.minute, r.requests, r.items]),
    [
      ['11:10', 1, 20],
      ['11:16', 1, 30],
    ],
  );
});

t.test('a collector that is gone is left out, the others are written', async (t) => {
  const a = await newCollector('Load stays');
  const load = createUploadLoad({ db, clock, log }, 60_000);
  t.teardown(() => load.stop());
  const gone = randomUUID();
  load.add(gone, batch(3));
  load.add(a, batch(4));
  await load.flush();
  t.same(
    (await rowsOf(a)).map((r) => r.items),
    [4],
  );
  t.same(await rowsOf(gone), []);
});

t.test('counts added while a write is under way are written by the next; stop writes what is left', async (t) => {
  const a = await newCollector('Load busy');
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let writes = 0;
  const slow: StatementSession = {
    ...db,
    sql: async (text, params, options) => {
      writes += 1;
      if (writes === 1) await gate;
      return db.sql(text, params, options);
    },
  } as StatementSession;
  const load = createUploadLoad({ db: slow, clock, log }, 60_000);
  load.add(a, batch(1));
  const first = load.flush();
  for (let i = 0; i < 99; i++) load.add(a, batch(1));
  const second = load.flush();
  release();
  await Promise.all([first, second]);
  t.equal(writes, 2, 'the second write waited for the first');
  t.same(
    (await rowsOf(a)).map((r) => [r.requests, r.items]),
    [[100, 100]],
  );
  load.add(a, batch(5));
  await load.stop();
  t.same(
    (await rowsOf(a)).map((r) => r.items),
    [105],
    'stop wrote the last count',
  );
});
