/**
 * Feed schedules, pure (docs/watchlists.md "Feeds"): five-field cron expressions in UTC,
 * node-cron's syntax and parser, and when a feed is due by the injected clock.
 */
import cron from 'node-cron';
import { cronBoundsProblem } from '../../platform/cron.ts';

/** How far back the last scheduled minute is looked for: a monthly feed still finds its day. */
const LOOKBACK_MINUTES = 32 * 24 * 60;

/** Why an expression is no feed schedule, or undefined. Numbers only (no `L`), five fields. */
export function feedScheduleProblem(expression: string): string | undefined {
  // Before node-cron: its validator allocates one array element per number of a range.
  const bounds = cronBoundsProblem(expression);
  if (bounds) return bounds;
  const result = cron.validateDetailed(expression);
  if (!result.valid) return result.errors.map((e) => `${e.field}: ${e.message}`).join('; ') || 'not a cron expression';
  // Six fields (seconds) could read a server every second.
  if (expression.trim().split(/\s+/).length !== 5) return 'five fields (minute hour day month weekday): at most one read a minute';
  const f = cron.parse(expression);
  if ([...f.dayOfMonth, ...f.dayOfWeek].some((v) => typeof v !== 'number')) return 'day fields take numbers, ranges and steps only';
  return undefined;
}

/** The latest minute at or before `now` the schedule names (UTC), or null within the lookback. */
export function lastScheduledMinute(expression: string, now: Date): Date | null {
  // A schedule stored before the bounds check existed is never handed to the parser unchecked.
  if (cronBoundsProblem(expression)) return null;
  const f = cron.parse(expression);
  const minutes = new Set(f.minute);
  const hours = new Set(f.hour);
  const months = new Set(f.month);
  const doms = new Set(f.dayOfMonth as number[]);
  const dows = new Set((f.dayOfWeek as number[]).map((d) => d % 7));
  // Classic cron: when both day fields are restricted, either one matching is enough.
  const domAll = doms.size === 31;
  const dowAll = dows.size === 7;
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  for (let i = 0; i <= LOOKBACK_MINUTES; i++) {
    const t = new Date(start - i * 60_000);
    if (!minutes.has(t.getUTCMinutes()) || !hours.has(t.getUTCHours()) || !months.has(t.getUTCMonth() + 1)) continue;
    const dom = doms.has(t.getUTCDate());
    const dow = dows.has(t.getUTCDay());
    if (domAll || dowAll ? dom && dow : dom || dow) return t;
  }
  return null;
}

/** Due: never read, or a scheduled minute has passed since the last read began. */
export function feedDue(schedule: string, lastCheckedAt: Date | null, now: Date): boolean {
  if (lastCheckedAt === null) return true;
  const slot = lastScheduledMinute(schedule, now);
  return slot !== null && slot.getTime() > lastCheckedAt.getTime();
}
