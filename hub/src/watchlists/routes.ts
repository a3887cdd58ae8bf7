import { SUBSCRIPTIONS_PATH, WATCHLISTS_PATH, WATCHLIST_ENTRY_ROUTE, WATCHLIST_ROUTE, watchlistPartRoute } from '../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { readEdgeBody } from '@alpr/shared/http/read-body';
import type { RetroHunt } from './hunt.ts';
import type { AuthContext } from '../auth/context.ts';
import { requestMeta } from '../auth/request.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { HubError } from '../platform/errors.ts';
import { idParam, validJson, validParam, validQuery } from '../platform/http/validator.ts';
import type { WatchlistActor } from './context.ts';
import { csvField, formatWatchlistCsv } from './csv.ts';
import { addEntry, DEFAULT_ENTRY_PAGE, exportEntries, importEntries, listEntries, MAX_ENTRY_PAGE, removeEntry, updateEntryNotes } from './entries.ts';
import { presentEntry, presentSubscription, presentWatchlist } from './present.ts';
import { createWatchlistBodySchema, entryBodySchema, updateEntryBodySchema, updateWatchlistBodySchema } from './schema.ts';
import { mySubscriptions, subscribe, unsubscribe } from './subscriptions.ts';
import { getRecipients, presentRecipients, setRecipients } from './recipients.ts';
import { recipientsBodySchema } from './recipients-schema.ts';
import { createWatchlist, deleteWatchlist, getWatchlist, listWatchlists, updateWatchlist } from './watchlists.ts';

/** 10,000 rows of `plate,notes` with notes of ~150 characters; the JSON edge caps at 256 KB. */
export const MAX_IMPORT_BYTES = 2 * 1024 * 1024;

const pageQuerySchema = z.object({
  after: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ENTRY_PAGE).default(DEFAULT_ENTRY_PAGE),
});

/** An entry's path: both ids named, not checked; the verbs answer 404 for an id that is not theirs. */
const entryParam = validParam(z.object({ id: z.string(), entryId: z.string() }));

function actorOf(c: Context<AuthEnv>): WatchlistActor {
  return { userId: c.get('user').id, ...requestMeta(c) };
}

async function readCsv(c: Context): Promise<string> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/csv' && type !== 'text/plain') throw new HubError('unsupported_media_type', 'send the file as text/csv');
  const body = await readEdgeBody(c.req.raw, MAX_IMPORT_BYTES);
  if (body.kind === 'too_large') throw new HubError('payload_too_large', `an import is at most ${MAX_IMPORT_BYTES} bytes`, { Connection: 'close' });
  if (body.kind === 'aborted') throw new HubError('bad_request', 'the request body was cut off');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body.bytes);
  } catch {
    throw new HubError('bad_request', 'the file is not UTF-8 text');
  }
}

/**
 * Watchlists, entries, import/export and subscriptions (docs/watchlists.md). Viewers read
 * and manage their own subscriptions; operators and admins change watchlists. Writes are
 * limited per user (`POST /api/v1/watchlist/*` 30/min, `DELETE /api/v1/*` 10/min);
 * every change is audited inside its verb's transaction. Plates added by hand (one, or a
 * CSV import) are retro-hunted over the list's `retro_hunt_days` by `hunt`, the alerts
 * domain's retro-hunt that app.ts hands in (its hits reach the bot and webhooks).
 */
export function watchlistRoutes(deps: AuthContext, options: { hunt: RetroHunt }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const anyUser = requireUser(deps);
  const editor = requireUser(deps, { roles: ['operator', 'admin'] });
  const writeLimit = rateLimit(deps, RATE_LIMITS.watchlist);
  const deleteLimit = rateLimit(deps, RATE_LIMITS.delete);
  const write = every(editor, writeLimit);
  const remove = every(editor, deleteLimit);
  const hunt = { hunt: options.hunt };

  app.get(WATCHLISTS_PATH, anyUser, async (c) => c.json({ data: (await listWatchlists(deps, c.get('user').id)).map(presentWatchlist) }));
  app.post(WATCHLISTS_PATH, write, ...validJson(createWatchlistBodySchema), async (c) => {
    const created = await createWatchlist(deps, actorOf(c), c.req.valid('json'));
    return c.json(presentWatchlist(created), 201);
  });
  app.get(WATCHLIST_ROUTE, anyUser, idParam, async (c) => c.json(presentWatchlist(await getWatchlist(deps, c.get('user').id, c.req.valid('param').id))));
  app.patch(WATCHLIST_ROUTE, write, idParam, ...validJson(updateWatchlistBodySchema), async (c) => {
    const updated = await updateWatchlist(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(presentWatchlist(updated));
  });
  app.delete(WATCHLIST_ROUTE, remove, idParam, async (c) => {
    await deleteWatchlist(deps, actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });

  app.get(watchlistPartRoute('entries'), anyUser, idParam, validQuery(pageQuerySchema), async (c) => {
    const page = await listEntries(deps, c.req.valid('param').id, c.req.valid('query'));
    return c.json({ data: page.entries.map(presentEntry), next_after: page.next });
  });
  app.post(watchlistPartRoute('entries'), write, idParam, ...validJson(entryBodySchema), async (c) => {
    const { retroHunt, ...entry } = await addEntry(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), hunt);
    return c.json({ ...presentEntry(entry), ...(retroHunt ? { retro_hunt: retroHunt } : {}) }, 201);
  });
  app.patch(WATCHLIST_ENTRY_ROUTE, write, entryParam, ...validJson(updateEntryBodySchema), async (c) => {
    const { id, entryId } = c.req.valid('param');
    return c.json(presentEntry(await updateEntryNotes(deps, actorOf(c), id, entryId, c.req.valid('json').notes)));
  });
  app.delete(WATCHLIST_ENTRY_ROUTE, remove, entryParam, async (c) => {
    const { id, entryId } = c.req.valid('param');
    await removeEntry(deps, actorOf(c), id, entryId);
    return c.body(null, 204);
  });
  app.post(watchlistPartRoute('import'), write, idParam, async (c) => {
    const report = await importEntries(deps, { ...actorOf(c), role: c.get('user').role }, c.req.valid('param').id, await readCsv(c), hunt);
    return c.json(report, 200);
  });
  app.get(watchlistPartRoute('export'), anyUser, idParam, async (c) => {
    const { name, entries, rule, recipients } = await exportEntries(deps, c.req.valid('param').id, { withRecipients: c.get('user').role !== 'viewer' });
    const file = `${name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'watchlist'}.csv`;
    return c.body(
      formatWatchlistCsv(
        entries.map((e) => ({ plate: e.plateNumber, notes: e.notes })),
        rule,
        recipients,
      ),
      200,
      {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename=${csvField(file)}`,
      },
    );
  });

  // Subscriptions are the user's own: any role may subscribe to what it can read.
  app.post(watchlistPartRoute('subscription'), every(anyUser, writeLimit), idParam, async (c) => {
    const { id } = c.req.valid('param');
    const created = await subscribe(deps, actorOf(c), id);
    return c.json({ watchlist_id: id, subscribed: true }, created ? 201 : 200);
  });
  app.delete(watchlistPartRoute('subscription'), every(anyUser, deleteLimit), idParam, async (c) => {
    await unsubscribe(deps, actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  app.get(SUBSCRIPTIONS_PATH, anyUser, async (c) => {
    return c.json({ data: (await mySubscriptions(deps, c.get('user').id)).map(presentSubscription) });
  });
  // Recipients beyond the subscribers (docs/watchlists.md "Recipients"): read and set by those
  // who edit lists; they name chats and webhook targets, which viewers have no need to see.
  app.get(watchlistPartRoute('recipients'), editor, idParam, async (c) => {
    return c.json(presentRecipients(await getRecipients(deps, c.req.valid('param').id), c.get('user').id));
  });
  app.put(watchlistPartRoute('recipients'), write, idParam, ...validJson(recipientsBodySchema), async (c) => {
    const user = c.get('user');
    const set = await setRecipients(deps, { ...actorOf(c), role: user.role }, c.req.valid('param').id, c.req.valid('json'));
    return c.json(presentRecipients(set, user.id));
  });
  // Feeds (docs/watchlists.md "Feeds"): the list follows a URL.
  return app;
}
