import {
  NOTIFICATION_PREFERENCES_PATH,
  TELEGRAM_LINK_CODE_PATH,
  TELEGRAM_LINK_PATH,
  TELEGRAM_MUTE_PATH,
  TELEGRAM_UNLINK_PATH,
  TELEGRAM_WEBHOOK_PATH,
} from '../platform/http/paths.ts';
import { timingSafeEqual, createHash } from 'node:crypto';
import { Hono, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { HubError } from '../platform/errors.ts';
import { validJson } from '../platform/http/validator.ts';
import { applyWebhookUpdate, type TelegramUpdate } from './handle-update.ts';
import { createLinkCode, linkState, unlinkFromWeb } from './link-codes.ts';
import { parseDuration } from './bot-commands.ts';
import { listPreferences, muteChats, preferenceSchema, setPreference } from './preferences.ts';

/**
 * The messaging bot over HTTP (docs/messaging.md): a signed-in user's link code and link
 * state, unlinking from the web, and the platform's webhook.
 */

const updateSchema = z
  .object({
    update_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    message: z
      .object({
        chat: z
          .object({ id: z.number().int(), type: z.string().max(20).optional() })
          .passthrough()
          .optional(),
        text: z.string().max(4096).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** The link-code and unlink posts take no fields: `{}` or no body at all. */
const emptyBodySchema = z.object({}).strict();
const muteBodySchema = z.object({ duration: z.string().max(10).nullable() }).strict();

/** Constant time whatever the lengths: both sides hashed first. */
function sameSecret(given: string | undefined, wanted: string): boolean {
  const a = createHash('sha256')
    .update(given ?? '')
    .digest();
  const b = createHash('sha256').update(wanted).digest();
  return timingSafeEqual(a, b) && given !== undefined;
}

export function messagingRoutes(deps: PlatformDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const user = requireUser(deps);
  app.post(TELEGRAM_LINK_CODE_PATH, every(user, rateLimit(deps, RATE_LIMITS.linkCode)), ...validJson(emptyBodySchema), async (c) => {
    const created = await createLinkCode(deps, c.get('user').id);
    c.header('Cache-Control', 'no-store');
    return c.json({ code: created.code, expires_at: created.expiresAt.toISOString(), command: `/link ${created.code}` }, 201);
  });
  app.get(TELEGRAM_LINK_PATH, user, async (c) => c.json(await linkState(deps, c.get('user').id)));
  app.post(TELEGRAM_UNLINK_PATH, every(user, rateLimit(deps, RATE_LIMITS.admin)), ...validJson(emptyBodySchema), async (c) => {
    const now = deps.clock.now();
    const userId = c.get('user').id;
    const rows = await unlinkFromWeb(deps.db, userId, now);
    return c.json({ unlinked: rows.length });
  });

  // Mute from the web, like /mute in the chat: `duration` as the bot takes it, null unmutes.
  app.post(TELEGRAM_MUTE_PATH, every(user, rateLimit(deps, RATE_LIMITS.admin)), ...validJson(muteBodySchema), async (c) => {
    const body = c.req.valid('json');
    const ms = body.duration === null ? null : parseDuration(body.duration);
    if (ms === undefined) throw new HubError('bad_request', 'duration: say how long, as 30m, 2h or 1d (at most 30 days), or null to unmute');
    return c.json(await muteChats(deps.db, deps.clock, c.get('user').id, ms));
  });

  app.get(NOTIFICATION_PREFERENCES_PATH, user, async (c) => c.json({ preferences: await listPreferences(deps.db, c.get('user').id) }));
  app.put(NOTIFICATION_PREFERENCES_PATH, every(user, rateLimit(deps, RATE_LIMITS.admin)), ...validJson(preferenceSchema), async (c) => {
    const input = c.req.valid('json');
    await setPreference(deps.db, deps.clock, c.get('user').id, input);
    return c.json({ preferences: await listPreferences(deps.db, c.get('user').id) });
  });

  // The platform's webhook. Answers 401 without the secret it was given at setWebhook, 404
  // when the hub polls instead. The reply rides in the answer (the platform sends it), so a
  // webhook needs no outbound call. An update already applied (a platform retry) is skipped.
  // The mode and the secret are checked before the body is read, so a caller without the
  // secret learns nothing about what the body should look like.
  const webhookGate: MiddlewareHandler = async (c, next) => {
    const bot = deps.config.telegram;
    if (!bot || bot.mode !== 'webhook' || !bot.webhookSecret) throw new HubError('not_found', 'no such route');
    if (!sameSecret(c.req.header('X-Telegram-Bot-Api-Secret-Token'), bot.webhookSecret)) throw new HubError('unauthorized', 'wrong or missing secret token');
    await next();
  };
  app.post(TELEGRAM_WEBHOOK_PATH, rateLimit(deps, RATE_LIMITS.botWebhook), webhookGate, ...validJson(updateSchema), async (c) => {
    const update = c.req.valid('json') as TelegramUpdate;
    const reply = await applyWebhookUpdate(deps.db, deps.clock.now(), update);
    return c.json(reply ? { method: 'sendMessage', chat_id: reply.chatId, text: reply.text } : {});
  });
  return app;
}
