/**
 * The health evaluator's schedule (docs/health.md): once a minute, read the injected clock,
 * evaluate, and send the admins' bot messages it queued; the old counts are pruned once an
 * hour. One look at a time: a slow database never stacks ticks.
 */
import type { BotApi } from '../messaging/bot-api.ts';
import { createSendLimits } from '../messaging/delivery/send-limits.ts';
import { sendHealthMessages } from './bot.ts';
import { evaluateHealth, pruneHealthCounts, type HealthContext } from './evaluate.ts';
import { EVALUATE_EVERY_MS } from './kinds.ts';

const PRUNE_EVERY_MS = 3_600_000;

export interface HealthSchedule {
  stop(): Promise<void>;
}

export function startHealthSchedule(ctx: HealthContext, bot: BotApi | undefined, everyMs = EVALUATE_EVERY_MS): HealthSchedule {
  const limits = createSendLimits();
  let lastPrune = -Infinity;
  let running: Promise<void> = Promise.resolve();
  const once = async (): Promise<void> => {
    await evaluateHealth(ctx);
    if (bot) await sendHealthMessages({ db: ctx.db, clock: ctx.clock, log: ctx.log, api: bot, limits });
    const now = ctx.clock.now().getTime();
    if (now - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now;
      await pruneHealthCounts(ctx.db, ctx.clock.now());
    }
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = once()
      .catch((err: unknown) => ctx.log.error({ err }, 'health evaluation failed'))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
