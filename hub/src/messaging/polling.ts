import type { Clock } from '../platform/clock.ts';
import type { DbSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';
import { BotApiError, type BotApi } from './bot-api.ts';
import { applyUpdate, type TelegramUpdate } from './handle-update.ts';

/**
 * Receiving updates by long polling (`getUpdates`; docs/messaging.md "Inbound"). Each update
 * is applied and the next offset saved in ONE transaction, so a crash before the commit
 * replays that update and a crash after it never does; the platform forgets confirmed
 * updates when it sees the next offset. The reply is sent after the commit (a reply lost to
 * a crash is the one thing a restart does not repeat).
 */
export interface Polling {
  stop(): Promise<void>;
}

const OFFSET_KEY = 'update_offset';

export async function savedOffset(db: DbSession): Promise<number> {
  const [row] = await db.sql<{ value: string }>('SELECT value FROM telegram_bot_state WHERE key = $1', [OFFSET_KEY]);
  return row ? Number(row.value) : 0;
}

export function startPolling(deps: { db: DbSession; clock: Clock; log: Log }, api: BotApi, options: { timeoutSeconds?: number } = {}): Polling {
  const controller = new AbortController();
  let stopped = false;
  const loop = (async () => {
    // Long polling and a webhook exclude each other on the platform.
    await api.call('deleteWebhook', {}).catch((err: unknown) => deps.log.warn({ err }, 'telegram deleteWebhook failed'));
    let failures = 0;
    while (!stopped) {
      try {
        const offset = await savedOffset(deps.db);
        const updates = await api.call<TelegramUpdate[]>(
          'getUpdates',
          { offset, timeout: options.timeoutSeconds ?? 25, allowed_updates: ['message'] },
          { signal: controller.signal, timeoutMs: ((options.timeoutSeconds ?? 25) + 10) * 1000 },
        );
        failures = 0;
        for (const update of updates) {
          if (stopped) break;
          const reply = await deps.db.transaction(async (tx) => {
            const answer = await applyUpdate(tx, deps.clock.now(), update);
            await tx.sql(
              `INSERT INTO telegram_bot_state (key, value, updated_at) VALUES ($1, $2, now())
               ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
              [OFFSET_KEY, String(update.update_id + 1)],
            );
            return answer;
          });
          if (reply)
            await api
              .call('sendMessage', { chat_id: reply.chatId, text: reply.text })
              .catch((err: unknown) => deps.log.warn({ err, chat: reply.chatId }, 'telegram reply not sent'));
        }
      } catch (err) {
        if (stopped) break;
        failures += 1;
        const wait = err instanceof BotApiError && err.retryAfter !== undefined ? err.retryAfter * 1000 : Math.min(1000 * 2 ** failures, 60_000);
        deps.log.warn({ err, waitMs: wait }, 'telegram getUpdates failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      controller.abort();
      await loop;
    },
  };
}
