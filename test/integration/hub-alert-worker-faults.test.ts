/**
 * The alert worker as a real process (`npm run hub -- worker`), SIGKILLed mid-batch again
 * and again while watched and unwatched plates keep arriving through the real batch upload:
 * every matching detection ends with exactly one alert, nothing else gets one, and no queue
 * item is left `processing` or `failed`. Needs PostgreSQL (two processes on one database).
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { drainWithWorker, killWorkerRepeatedly } from './fault-cycles.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { startTestHub } from '../../hub/src/ingest/uploads.test-helper.ts';
import { someUser, twoOverlappingWatchlists, uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';

const CYCLES = Number(process.env.ALPR_ALERT_FAULT_CYCLES ?? 20);
const db = await testDatabase(t);
if (db.kind !== 'postgres' || !db.url) {
  t.comment('needs PostgreSQL: a second process cannot open the PGlite folder (set DATABASE_URL, or install postgresql)');
  t.pass('skipped on PGlite');
} else {
  const url = db.url;
  await t.test(`${CYCLES} SIGKILLs of the worker process with plates flowing`, async (t) => {
    const hub = await startTestHub({ db });
    t.teardown(() => hub.close());
    const ctx = { db, clock: systemClock, log: createLog('silent') };
    const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
    const watched = Array.from({ length: 40 }, (_, i) => `WK${String(i).padStart(3, '0')}X`);
    const { listA: first, listB: second } = await twoOverlappingWatchlists(ctx, actor, watched);

    // Plates keep coming for the whole run: a third watched, a sixth on both lists.
    let uploading = true;
    let sent = 0;
    let n = 0;
    const uploader = (async () => {
      while (uploading) {
        const plates = Array.from({ length: 20 }, () => {
          n += 1;
          return n % 3 === 0 ? (watched[n % watched.length] as string) : `UN${String(n).padStart(5, '0')}`;
        });
        await uploadPlates(hub, plates);
        sent += plates.length;
        await sleep(40);
      }
    })();

    const env = { DATABASE_URL: url, HUB_LOG_LEVEL: 'warn', HUB_ALERT_LOCK_TIMEOUT_SECONDS: '2' };
    await killWorkerRepeatedly(env, CYCLES, 150, 900);
    uploading = false;
    await uploader;
    const open = await drainWithWorker(db, env, `SELECT count(*)::int AS open FROM alert_queue WHERE status IN ('pending', 'processing')`, 60_000, {
      note: (line) => t.comment(line),
    });
    t.equal(open, 0, `the queue drained after ${CYCLES} SIGKILLs (${sent} detections)`);

    // A settled item leaves the queue (0047): nothing pending, claimed or given up is left.
    // That each read was checked, once, is what the alerts below show.
    const [queue] = await db.sql<{ total: number; failed: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM alert_queue`,
    );
    t.equal(queue?.failed, 0, 'none failed');
    t.equal(queue?.total, 0, `every item settled and gone (${sent} detections)`);

    const expected = await db.sql<{ detection_pk: string; plate: string }>(
      `SELECT k.detection_pk, d.plate_normalized AS plate FROM detection_keys k JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at`,
    );
    const alerts = await db.sql<{ detection_id: string; watchlist_id: string }>('SELECT detection_id, watchlist_id FROM alerts');
    const got = new Map<string, number>();
    for (const a of alerts) got.set(`${a.detection_id}/${a.watchlist_id}`, (got.get(`${a.detection_id}/${a.watchlist_id}`) ?? 0) + 1);
    const want = new Set<string>();
    for (const d of expected) {
      const i = watched.indexOf(d.plate);
      if (i < 0) continue;
      want.add(`${d.detection_pk}/${first.id}`);
      if (i < 10) want.add(`${d.detection_pk}/${second.id}`);
    }
    const missing = [...want].filter((k) => !got.has(k));
    const unexpected = [...got.keys()].filter((k) => !want.has(k));
    const doubled = [...got.entries()].filter(([, count]) => count > 1);
    t.ok(want.size > 50, `${want.size} alerts expected`);
    t.same(missing, [], 'every matching detection has its alert');
    t.same(unexpected, [], 'nothing else has one');
    t.same(doubled, [], 'none twice');
  });
}
