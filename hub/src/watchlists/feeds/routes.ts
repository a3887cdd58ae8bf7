import { watchlistPartRoute } from '../../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import type { AuthContext } from '../../auth/context.ts';
import { requestMeta } from '../../auth/request.ts';
import { requireUser, type AuthEnv } from '../../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../../auth/rate-limit.ts';
import { idParam, validJson } from '../../platform/http/validator.ts';
import type { WatchlistActor } from '../context.ts';
import { feedBodySchema, loadFeed, presentFeed, removeFeed, requestFeedUpdate, setFeed } from './feeds.ts';

function actorOf(c: Context<AuthEnv>): WatchlistActor {
  return { userId: c.get('user').id, ...requestMeta(c) };
}

/**
 * A watchlist's feed (docs/watchlists.md "Feeds"): any user reads the setting and the last
 * update's outcome; operators and admins set, remove, or ask for an update now (the feed
 * schedule reads it within a minute, with the bot and webhooks told of historical hits).
 */
export function feedRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const anyUser = requireUser(deps);
  const editor = requireUser(deps, { roles: ['operator', 'admin'] });
  const write = every(editor, rateLimit(deps, RATE_LIMITS.watchlist));
  const remove = every(editor, rateLimit(deps, RATE_LIMITS.delete));

  app.get(watchlistPartRoute('feed'), anyUser, idParam, async (c) => c.json(presentFeed(await loadFeed(deps.db, c.req.valid('param').id))));
  app.put(watchlistPartRoute('feed'), write, idParam, ...validJson(feedBodySchema), async (c) => {
    return c.json(presentFeed(await setFeed(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'))));
  });
  app.delete(watchlistPartRoute('feed'), remove, idParam, async (c) => {
    await removeFeed(deps, actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  app.post(watchlistPartRoute('feed/update'), write, idParam, async (c) => {
    return c.json(presentFeed(await requestFeedUpdate(deps, actorOf(c), c.req.valid('param').id)), 202);
  });
  return app;
}
