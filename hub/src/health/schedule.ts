/**
 * The health evaluator's schedule (docs/health.md): once a minute, read the injected clock,
 * evaluate, and send the admins' bot messages it queued; the old counts are pruned once an
 * hour. One look at a time: a slow database never stacks ticks.
 */
import { evaluateHealth, pruneHealthCounts, type HealthContext } from './evaluate.ts';
import { EVALUATE_EVERY_MS } from './kinds.ts';

const PRUNE_EVERY_MS = 3_600_000;

export interface HealthSchedule {
  stop(): Promise<void>;
}

/** `afterLook`: what follows each look outside its transaction (the bot sends the messages its hearer queued). */
export function startHealthSchedule(ctx: HealthContext, afterLook: (() => Promise<unknown>) | undefined, everyMs = EVALUATE_EVERY_MS): HealthSchedule {
  let lastPrune = -Infinity;
  let running: Promise<void> = Promise.resolve();
  const once = async (): Promise<void> => {
    await evaluateHealth(ctx);
    if (afterLook) await afterLook();
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
