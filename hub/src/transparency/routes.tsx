/**
 * GET /transparency (HTML) and /transparency.json: the public account (docs/transparency.md).
 * No sign-in. Off unless HUB_TRANSPARENCY=on: then both answer 404 like any unknown path.
 * Query strings are ignored (the account takes no parameters).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { rateLimit, type RateLimitOptions } from '../auth/rate-limit.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { pageHeaders } from '../ui/page-headers.ts';
import { accountRange, assembleAccount, type PublicAccount } from './account.ts';
import { oncePerInterval } from './cache.ts';
import { loadAccountInput } from './load.ts';
import { TransparencyPage } from './page.tsx';
import { HubError } from '../platform/errors.ts';

/**
 * Per address, token bucket: 30 a minute lets a person reload and a council's monitor poll;
 * the counts themselves are computed at most once a minute whatever the traffic.
 */
export const TRANSPARENCY_LIMIT: RateLimitOptions = { scope: 'public.transparency', limit: 30, windowSeconds: 60, key: 'address' };

export function transparencyRoutes(deps: PlatformDeps): Hono {
  const app = new Hono();
  const account = oncePerInterval(async (now): Promise<PublicAccount> => {
    const input = await loadAccountInput(deps.db, accountRange(now));
    return assembleAccount({ ...input, now, horizons: deps.config.retention, preset: deps.config.retentionPreset });
  });
  // Read per request, not at mount: the setting is the admin's, and tests turn it on.
  const enabled: MiddlewareHandler = async (c, next) => {
    if (!deps.config.transparency) throw new HubError('not_found', 'no such route');
    await next();
    return undefined;
  };
  const limit = rateLimit(deps, TRANSPARENCY_LIMIT);
  // Same-origin scripts and styles only, as on every dashboard page; the figures may be a minute old.
  const cacheable: MiddlewareHandler = async (c, next) => {
    await next();
    if (c.res.status === 200) c.header('Cache-Control', 'public, max-age=60');
  };

  app.get('/transparency.json', enabled, limit, cacheable, async (c) => c.json(await account.get(deps.clock.now())));
  app.get('/transparency', enabled, pageHeaders(), limit, cacheable, async (c) => c.html(<TransparencyPage account={await account.get(deps.clock.now())} />));
  return app;
}
