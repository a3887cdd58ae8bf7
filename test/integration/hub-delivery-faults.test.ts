/**
 * The worker process (`npm run hub -- worker`: alert worker and bot delivery) SIGKILLed
 * again and again while watched plates keep arriving through the real batch upload and the
 * Bot API simulator takes the messages: every alert reaches every eligible chat, and any
 * alert that reaches a chat twice (the worker died with the request in flight) says so in
 * the second message. Duplicates are counted and reported (goal 0). Needs PostgreSQL (two
 * processes on one database).
 */
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { drainWithWorker, killWorkerRepeatedly } from './fault-cycles.ts';
import { startBotApi } from '../../scripts/simulators/telegram-bot-api.ts';
import { someUser, twoOverlappingWatchlists } from '../../hub/src/alerts/alerts.test-helper.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { jpegLike, sampleDetection, startTestHub, uploadBatch } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { subscribe } from '../../hub/src/watchlists/subscriptions.ts';

const CYCLES = Number(process.env.ALPR_DELIVERY_FAULT_CYCLES ?? 20);
/** Reads uploaded while the worker is killed: about what 20 cycles take on a quiet machine. */
const MAX_READS = 2_000;
const db = await testDatabase(t);
if (db.kind !== 'postgres' || !db.url) {
  t.comment('needs PostgreSQL: a second process cannot open the PGlite folder (set DATABASE_URL, or install postgresql)');
  t.pass('skipped on PGlite');
} else {
  const url = db.url;
  await t.test(`${CYCLES} SIGKILLs of the worker process with alerts flowing to three chats`, async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alpr-delivery-faults-'));
    t.teardown(() => rm(dataDir, { recursive: true, force: true }));
    const hub = await startTestHub({ db, images: openImageStore(join(dataDir, 'images'), { db }) });
    t.teardown(() => hub.close());
    const sim = await startBotApi();
    t.teardown(() => sim.close());
    const ctx = { db, clock: systemClock, log: createLog('silent') };
    const admin = { userId: await someUser(hub.deps), ip: null, userAgent: null };
    const watched = Array.from({ length: 30 }, (_, i) => `DF${String(i).padStart(3, '0')}Z`);
    const { listA, listB } = await twoOverlappingWatchlists(ctx, admin, watched);
    // Chats 3001 and 3002 follow list A, 3003 list B, 3004 list A but muted (gets nothing).
    const people = [
      [3001, [listA.id]],
      [3002, [listA.id]],
      [3003, [listB.id]],
      [3004, [listA.id]],
    ] as const;
    for (const [chat, lists] of people) {
      const userId = await someUser(hub.deps);
      for (const list of lists) await subscribe(ctx, { userId, ip: null, userAgent: null }, list);
      await db.sql(`INSERT INTO telegram_links (user_id, chat_id, muted_until) VALUES ($1, $2, $3)`, [
        userId,
        chat,
        chat === 3004 ? new Date(Date.now() + 86_400_000).toISOString() : null,
      ]);
    }

    let uploading = true;
    let n = 0;
    // Reads flow through every kill cycle; on a loaded machine the cycles last longer (each
    // worker start compiles through tsx), so the reads are bounded: the backlog left for the
    // drain stays about what a quiet machine leaves.
    const uploader = (async () => {
      while (uploading && n < MAX_READS) {
        const entries = Array.from({ length: 10 }, () => {
          n += 1;
          const text = n % 2 === 0 ? (watched[n % watched.length] as string) : `NW${String(n).padStart(5, '0')}`;
          return { detection: sampleDetection({ plate: { text, confidence: 0.9 } }), ...(n % 4 === 0 ? { plateCrop: jpegLike(1500) } : {}) };
        });
        await uploadBatch(hub, hub.apiKey, entries);
        await sleep(250);
      }
    })();

    const env = {
      DATABASE_URL: url,
      HUB_LOG_LEVEL: 'warn',
      HUB_DATA_DIR: dataDir,
      HUB_ALERT_LOCK_TIMEOUT_SECONDS: '2',
      HUB_PUBLIC_URL: 'https://hub.example.test',
      HUB_TELEGRAM_BOT_TOKEN: sim.token,
      HUB_TELEGRAM_API_URL: sim.url,
      HUB_TELEGRAM_AGGREGATE_SECONDS: '0.5',
      HUB_TELEGRAM_COOLDOWN_SECONDS: '0',
    };
    await killWorkerRepeatedly(env, CYCLES, 300, 1200);
    uploading = false;
    await uploader;
    const open = await drainWithWorker(
      db,
      env,
      `SELECT ((SELECT count(*) FROM alert_queue WHERE status IN ('pending', 'processing')) + (SELECT count(*) FROM notification_queue WHERE status IN ('pending', 'processing')))::int AS open`,
      90_000,
      { maxMs: 300_000, note: (line) => t.comment(line) },
    );
    t.equal(open, 0, 'both queues drained');

    // What each chat should have: every alert of a list it follows (3004 is muted).
    const alerts = await db.sql<{ detection_id: string; name: string }>(
      `SELECT a.detection_id, w.name FROM alerts a JOIN watchlists w ON w.id = a.watchlist_id`,
    );
    const want = new Set<string>();
    for (const a of alerts) {
      if (a.name === 'Faults A') for (const chat of [3001, 3002]) want.add(`${chat}/${a.detection_id}/${a.name}`);
      if (a.name === 'Faults B') want.add(`3003/${a.detection_id}/${a.name}`);
    }
    // What arrived: every block "PLATE on LIST (priority)" up to its detection link.
    const got = new Map<string, { count: number; flagged: number }>();
    for (const m of sim.sent) {
      for (const match of m.text.matchAll(/ on (Faults [AB]) \([a-z]+\)(?: \(unverified\))?( \(possibly a repeat\))?[\s\S]*?\/detections\/(\d+)/g)) {
        const key = `${m.chatId}/${match[3]}/${match[1]}`;
        const entry = got.get(key) ?? { count: 0, flagged: 0 };
        entry.count += 1;
        if (match[2] || /Possibly a repeat/.test(m.text)) entry.flagged += 1;
        got.set(key, entry);
      }
    }
    const missing = [...want].filter((k) => !got.has(k));
    const unexpected = [...got.keys()].filter((k) => !want.has(k));
    const duplicates = [...got.entries()].filter(([, e]) => e.count > 1);
    const silent = duplicates.filter(([, e]) => e.flagged < e.count - 1);
    const [states] = await db.sql<{ unknown: number; sent: number; failed: number; suppressed: number }>(
      `SELECT (SELECT count(*) FROM telegram_messages WHERE state = 'unknown')::int AS unknown, (SELECT count(*) FROM notification_queue WHERE status = 'sent')::int AS sent,
              (SELECT count(*) FROM notification_queue WHERE status = 'failed')::int AS failed, (SELECT count(*) FROM notification_queue WHERE status = 'suppressed')::int AS suppressed`,
    );
    if (missing.length > 0) {
      const [chat, det] = (missing[0] as string).split('/');
      t.comment(
        JSON.stringify(
          await db.sql(
            `SELECT q.status, q.attempts, q.last_error, q.message_id, m.state, m.method, m.alerts, m.platform_message_id FROM notification_queue q JOIN alerts a ON a.id = q.alert_id LEFT JOIN telegram_messages m ON m.id = q.message_id WHERE a.detection_id = $1 AND q.chat_id = $2`,
            [det, chat],
          ),
        ),
      );
      const row = (
        await db.sql<{ platform_message_id: string }>(
          `SELECT m.platform_message_id FROM notification_queue q JOIN alerts a ON a.id = q.alert_id JOIN telegram_messages m ON m.id = q.message_id WHERE a.detection_id = $1 AND q.chat_id = $2`,
          [det, chat],
        )
      )[0];
      t.comment(JSON.stringify(sim.sent.find((m) => String(m.messageId) === String(row?.platform_message_id))));
    }
    t.ok(want.size > 100, `${want.size} (alert, chat) deliveries expected from ${alerts.length} alerts`);
    t.same(missing, [], 'every alert reached every eligible chat');
    t.same(unexpected, [], 'nothing reached a chat that should not have it (the muted one included)');
    t.equal(states?.failed, 0, 'no delivery failed');
    t.same(silent, [], 'every repeated alert said it may be a repeat');
    t.comment(
      `duplicates: ${duplicates.length} of ${want.size} deliveries (goal 0); ${states?.unknown} messages were in flight when their worker died; ${sim.sent.length} messages, ${states?.suppressed} suppressed (muted)`,
    );
  });
}
