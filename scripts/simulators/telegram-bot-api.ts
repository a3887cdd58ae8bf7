/**
 * A Telegram Bot API simulator on loopback (issue 15), speaking the real shapes: every
 * method under `/bot<token>/<method>`, answers `{ ok, result }` or `{ ok: false, error_code,
 * description, parameters }`; `getMe`, `getUpdates` (long polling with `offset`/`timeout`,
 * 409 while a webhook is set), `setWebhook`/`deleteWebhook` (updates then POSTed to the hook
 * with `X-Telegram-Bot-Api-Secret-Token`), `sendMessage` (JSON or form), `sendPhoto`
 * (multipart with the photo's bytes). Faults as the platform has them: 429 with
 * `parameters.retry_after`, 403 "Forbidden: bot was blocked by the user", 401 for a wrong
 * token. Tests (and `npm start`) drive the user's side with `userSays`.
 *
 *   npx tsx scripts/simulators/telegram-bot-api.ts --token 123:ABC [--port 8081]
 */
import { serve } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { AddressInfo } from 'node:net';
import { closeOnSignals, isMain, numberArg, parseCliArgs } from './cli-args.ts';

export interface SentMessage {
  method: 'sendMessage' | 'sendPhoto';
  chatId: number;
  text: string;
  /** Bytes of the photo (sendPhoto), 0 otherwise. */
  photoBytes: number;
  at: number;
  messageId: number;
}

interface Update {
  update_id: number;
  message: { message_id: number; from: { id: number; is_bot: false; first_name: string }; chat: { id: number; type: 'private' }; date: number; text: string };
}

export interface BotApiSimulator {
  /** Base URL to configure as the API address (the hub appends `/bot<token>/<method>`). */
  url: string;
  token: string;
  sent: SentMessage[];
  /** The user in `chatId` sends `text` to the bot. */
  userSays(chatId: number, text: string): Promise<void>;
  /** The next `count` send calls answer 429 with this retry_after (seconds). */
  rateLimitNext(retryAfterSeconds: number, count?: number): void;
  /** The user blocks the bot: sends to this chat answer 403 from now on. */
  block(chatId: number): void;
  /** Every method called, in order (for tests). */
  calls: string[];
  close(): Promise<void>;
}

const ok = (c: Context, result: unknown) => c.json({ ok: true, result });
const fail = (c: Context, code: 400 | 401 | 403 | 409 | 429, description: string, parameters?: Record<string, unknown>) =>
  c.json({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }, code);

export async function startBotApi(options: { token?: string; port?: number; host?: string } = {}): Promise<BotApiSimulator> {
  const token = options.token ?? '123456:TEST-token';
  const updates: Update[] = [];
  const waiters = new Set<() => void>();
  const sent: SentMessage[] = [];
  const calls: string[] = [];
  const blocked = new Set<number>();
  let nextUpdateId = 1000;
  let nextMessageId = 1;
  let limited = { count: 0, retryAfter: 0 };
  let webhook: { url: string; secret: string | undefined } | undefined;

  // As the Bot API: parameters in the query string, the body (JSON, form, multipart), or both.
  const params = async (c: Context): Promise<Record<string, unknown>> => {
    const query = Object.fromEntries(new URL(c.req.url).searchParams);
    const type = c.req.header('content-type') ?? '';
    if (type.includes('application/json')) return { ...query, ...((await c.req.json().catch(() => ({}))) as Record<string, unknown>) };
    if (type.includes('multipart/form-data') || type.includes('application/x-www-form-urlencoded'))
      return { ...query, ...((await c.req.parseBody()) as Record<string, unknown>) };
    return query;
  };

  const app = new Hono();
  app.all('/bot:token/:method', async (c) => {
    if (c.req.param('token') !== token) return fail(c, 401, 'Unauthorized');
    const method = c.req.param('method');
    calls.push(method);
    const p = await params(c);
    switch (method) {
      case 'getMe':
        return ok(c, { id: Number(token.split(':')[0]), is_bot: true, first_name: 'ALPR Hub', username: 'alpr_hub_bot' });
      case 'setWebhook':
        webhook = { url: String(p['url'] ?? ''), secret: p['secret_token'] === undefined ? undefined : String(p['secret_token']) };
        return ok(c, true);
      case 'deleteWebhook':
        webhook = undefined;
        return ok(c, true);
      case 'getUpdates': {
        if (webhook) return fail(c, 409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
        const offset = Number(p['offset'] ?? 0);
        // Confirming: updates below the offset are forgotten for good (as Telegram does).
        while (updates.length > 0 && (updates[0]?.update_id ?? 0) < offset) updates.shift();
        const timeout = Math.min(Number(p['timeout'] ?? 0), 50);
        if (updates.length === 0 && timeout > 0) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              waiters.delete(done);
              clearTimeout(timer);
              resolve();
            };
            const timer = setTimeout(done, timeout * 1000);
            waiters.add(done);
          });
        }
        return ok(c, updates.slice(0, Number(p['limit'] ?? 100)));
      }
      case 'sendMessage':
      case 'sendPhoto': {
        if (limited.count > 0) {
          limited.count -= 1;
          return fail(c, 429, `Too Many Requests: retry after ${limited.retryAfter}`, { retry_after: limited.retryAfter });
        }
        const chatId = Number(p['chat_id']);
        if (!Number.isSafeInteger(chatId)) return fail(c, 400, 'Bad Request: chat not found');
        if (blocked.has(chatId)) return fail(c, 403, 'Forbidden: bot was blocked by the user');
        const photo = p['photo'];
        const photoBytes = photo instanceof File ? photo.size : 0;
        if (method === 'sendPhoto' && photoBytes === 0 && typeof photo !== 'string') return fail(c, 400, 'Bad Request: there is no photo in the request');
        const text = String(method === 'sendPhoto' ? (p['caption'] ?? '') : (p['text'] ?? ''));
        if (method === 'sendMessage' && text === '') return fail(c, 400, 'Bad Request: message text is empty');
        const message = { method, chatId, text, photoBytes, at: Date.now(), messageId: nextMessageId++ } as const;
        sent.push(message);
        return ok(c, { message_id: message.messageId, chat: { id: chatId, type: 'private' }, date: Math.floor(message.at / 1000), ...(text ? { text } : {}) });
      }
      default:
        return fail(c, 400, `Bad Request: method ${method} not found`);
    }
  });

  const server = serve({ fetch: app.fetch, hostname: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    sent,
    calls,
    async userSays(chatId, text) {
      const update: Update = {
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          from: { id: chatId, is_bot: false, first_name: 'Operator' },
          chat: { id: chatId, type: 'private' },
          date: Math.floor(Date.now() / 1000),
          text,
        },
      };
      if (webhook) {
        // Telegram retries a webhook that does not answer 2xx; the simulator posts once and
        // keeps the update only when it was refused, like an unconfirmed one.
        const res = await fetch(webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(webhook.secret ? { 'X-Telegram-Bot-Api-Secret-Token': webhook.secret } : {}) },
          body: JSON.stringify(update),
        }).catch(() => undefined);
        if (res?.ok) return;
      }
      updates.push(update);
      for (const wake of [...waiters]) wake();
    },
    rateLimitNext(retryAfterSeconds, count = 1) {
      limited = { count, retryAfter: retryAfterSeconds };
    },
    block(chatId) {
      blocked.add(chatId);
    },
    async close() {
      for (const wake of [...waiters]) wake();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const sim = await startBotApi({
    ...(args.get('token') ? { token: args.get('token') } : {}),
    ...(numberArg(args, 'port') !== undefined ? { port: numberArg(args, 'port') } : {}),
  });
  process.stdout.write(`Bot API simulator on ${sim.url} (token ${sim.token})\n`);
  closeOnSignals(() => sim.close());
}
