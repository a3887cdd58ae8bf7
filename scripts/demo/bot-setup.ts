/**
 * The demo's messaging bot, set up in the hub's database before the hub starts (PGlite opens
 * in one process): a "Demo: watched cars" watchlist holding the plates the demo's watched-car
 * camera passes (watched-cars.ts), the demo admin subscribed, and, while the admin has no
 * linked chat, a fresh link code that `npm start` sends to the bot as the simulated user
 * would (`/link CODE`), so the chat is linked by the real bot flow. Idempotent.
 *
 *   HUB_DATA_DIR=... node --import tsx scripts/demo/bot-setup.ts <admin email>
 * prints one JSON line: { "link_code": "..." | null }
 */
import { loadHubConfig } from '../../hub/src/platform/config/hub-config.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { createLinkCode } from '../../hub/src/messaging/link-codes.ts';
import { importEntries } from '../../hub/src/watchlists/entries.ts';
import { subscribe } from '../../hub/src/watchlists/subscriptions.ts';
import { createWatchlist } from '../../hub/src/watchlists/watchlists.ts';
import { WATCHED_PLATES } from './watched-cars.ts';

const LIST_NAME = 'Demo: watched cars';
const email = process.argv[2] ?? '';
const config = loadHubConfig(process.env);
const log = createLog('warn', process.stderr);
const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 1 });
try {
  const [user] = await db.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
  if (!user) throw new Error(`no user ${email}`);
  const ctx = { db, clock: systemClock, log };
  const actor = { userId: user.id, ip: null, userAgent: 'npm start' };
  const [existing] = await db.sql<{ id: string }>('SELECT id FROM watchlists WHERE name = $1 AND deleted_at IS NULL', [LIST_NAME]);
  const listId =
    existing?.id ??
    (await createWatchlist(ctx, actor, { name: LIST_NAME, priority: 'high', description: 'Plates the demo camera "watched cars" passes now and then' })).id;
  if (!existing) await importEntries(ctx, actor, listId, `plate,notes\n${WATCHED_PLATES.map((p) => `${p},demo`).join('\n')}\n`);
  await subscribe(ctx, actor, listId);
  const [linked] = await db.sql('SELECT 1 FROM telegram_links WHERE user_id = $1 AND is_active', [user.id]);
  const code = linked ? null : (await createLinkCode({ db, clock: systemClock }, user.id)).code;
  process.stdout.write(`${JSON.stringify({ link_code: code })}\n`);
} finally {
  await db.close();
}
