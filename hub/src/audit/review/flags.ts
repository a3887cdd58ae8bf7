/**
 * Audit review flags (docs/audit-review.md): patterns in who looked up what that are worth a
 * second look by an admin. Pure: the caller loads the lookups and the context (watchlists,
 * holds); nothing here blocks anyone. Each flag names the audit rows behind it.
 */

/** One audited lookup: a search, a detection view, an investigation or an export. */
export interface Lookup {
  auditId: string;
  at: Date;
  userId: string;
  action: string;
  /** The exact plate looked up (OCR-normalized), or null for a pattern or no plate: what lookups are grouped by. */
  plate: string | null;
  /** The same plate as the user typed it or the detection read it, for people (absent: `plate`). */
  plateAsRead?: string | null;
  purpose: string | null;
  caseNumber: string | null;
  resultCount: number | null;
}

export interface ReviewContext {
  /** Plates (normalized) on any watchlist, now or listed at any time the hub still records. */
  listedPlates: ReadonlySet<string>;
  /** Plates with a detection under a legal hold that is not released. */
  heldPlates: ReadonlySet<string>;
  /** IANA time zone for "hours of the day" (the site's local time), e.g. Europe/Berlin. */
  timeZone: string;
}

export type FlagKind = 'repeated_plate' | 'off_hours' | 'bulk_export' | 'plate_on_no_list';

export interface Flag {
  kind: FlagKind;
  userId: string;
  /** The first and last lookup behind the flag. */
  from: Date;
  to: Date;
  /** The plate as the first lookup behind the flag named it (never the OCR-folded key). */
  plate: string | null;
  message: string;
  auditIds: string[];
}

/** The plate of a group of lookups as people read it: the first lookup's, typed or read. */
function shown(rows: readonly Lookup[]): string | null {
  const first = rows[0];
  return first ? (first.plateAsRead ?? first.plate) : null;
}

/**
 * The thresholds, with why:
 * - 5 lookups of one plate in 30 days without a case number or a hold: an investigation
 *   has a case; someone following a person they know does not.
 * - usual hours need 20 lookups of history: fewer says nothing about a person's day. An
 *   hour is usual when it, or an hour next to it, holds at least 5 % of that history.
 * - an export of 1,000 detections, or 5 exports by one user in a day, is a bulk export.
 */
export const RULES = {
  repeatCount: 5,
  repeatWindowDays: 30,
  usualHistoryMin: 20,
  usualHourShare: 0.05,
  bulkExportRows: 1000,
  bulkExportsPerDay: 5,
} as const;

const DAY_MS = 86_400_000;

const isExport = (l: Lookup): boolean => l.action.startsWith('export.');
const hasCase = (l: Lookup): boolean => l.caseNumber !== null && l.caseNumber.trim() !== '';

/**
 * Flags over the lookups in [from, to). `history` is every lookup of the same users over a
 * longer span (it includes the reviewed ones): what "usual" is learned from.
 */
export function reviewFlags(reviewed: readonly Lookup[], history: readonly Lookup[], ctx: ReviewContext): Flag[] {
  const sorted = [...reviewed].sort((a, b) => a.at.getTime() - b.at.getTime() || Number(a.auditId) - Number(b.auditId));
  return [...repeatedPlates(sorted, ctx), ...offHours(sorted, history, ctx), ...bulkExports(sorted, ctx), ...plateOnNoList(sorted, ctx)].sort(
    (a, b) => b.to.getTime() - a.to.getTime() || a.kind.localeCompare(b.kind),
  );
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function flag(kind: FlagKind, rows: readonly Lookup[], plate: string | null, message: string): Flag {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) throw new Error('a flag needs at least one audit row');
  return { kind, userId: first.userId, from: first.at, to: last.at, plate: plate === null ? null : shown(rows), message, auditIds: rows.map((r) => r.auditId) };
}

/** The longest run of one user's lookups of one plate inside any 30-day window, if long enough. */
function repeatedPlates(sorted: readonly Lookup[], ctx: ReviewContext): Flag[] {
  const flags: Flag[] = [];
  const candidates = sorted.filter((l) => l.plate !== null && !hasCase(l) && !ctx.heldPlates.has(l.plate));
  for (const rows of groupBy(candidates, (l) => `${l.userId} ${l.plate}`).values()) {
    let best: Lookup[] = [];
    let start = 0;
    for (let end = 0; end < rows.length; end++) {
      while ((rows[end]?.at.getTime() ?? 0) - (rows[start]?.at.getTime() ?? 0) > RULES.repeatWindowDays * DAY_MS) start++;
      if (end - start + 1 > best.length) best = rows.slice(start, end + 1);
    }
    if (best.length >= RULES.repeatCount) {
      const plate = shown(best);
      flags.push(
        flag('repeated_plate', best, plate, `${plate} looked up ${best.length} times within ${RULES.repeatWindowDays} days, with no case number and no hold`),
      );
    }
  }
  return flags;
}

function hourIn(at: Date, timeZone: string): number {
  const hour = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone }).format(at);
  return Number(hour) % 24;
}

function dayIn(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone }).format(at);
}

/** The hours (0-23) a user's history calls usual, or undefined when the history is too short. */
export function usualHours(history: readonly Lookup[], timeZone: string): Set<number> | undefined {
  if (history.length < RULES.usualHistoryMin) return undefined;
  const counts = new Array<number>(24).fill(0);
  for (const l of history) counts[hourIn(l.at, timeZone)] = (counts[hourIn(l.at, timeZone)] ?? 0) + 1;
  const busy = counts.flatMap((n, hour) => (n / history.length >= RULES.usualHourShare ? [hour] : []));
  return new Set(busy.flatMap((h) => [(h + 23) % 24, h, (h + 1) % 24]));
}

/** One flag per user and local day with the lookups made outside that user's usual hours. */
function offHours(sorted: readonly Lookup[], history: readonly Lookup[], ctx: ReviewContext): Flag[] {
  const flags: Flag[] = [];
  const historyByUser = groupBy(history, (l) => l.userId);
  for (const [userId, rows] of groupBy(sorted, (l) => l.userId)) {
    const usual = usualHours(historyByUser.get(userId) ?? [], ctx.timeZone);
    if (!usual) continue;
    const odd = rows.filter((l) => !usual.has(hourIn(l.at, ctx.timeZone)));
    for (const [day, dayRows] of groupBy(odd, (l) => dayIn(l.at, ctx.timeZone))) {
      const hours = [...new Set(dayRows.map((l) => String(hourIn(l.at, ctx.timeZone)).padStart(2, '0')))].join(', ');
      flags.push(flag('off_hours', dayRows, null, `${dayRows.length} lookup(s) on ${day} at ${hours}h, far outside this user's usual hours`));
    }
  }
  return flags;
}

/** Each large export on its own; a user's day with many exports as one flag. */
function bulkExports(sorted: readonly Lookup[], ctx: ReviewContext): Flag[] {
  const exports = sorted.filter(isExport);
  const flags: Flag[] = exports
    .filter((l) => (l.resultCount ?? 0) >= RULES.bulkExportRows)
    .map((l) => flag('bulk_export', [l], l.plate, `an export of ${l.resultCount} detections`));
  for (const [key, rows] of groupBy(exports, (l) => `${l.userId} ${dayIn(l.at, ctx.timeZone)}`)) {
    if (rows.length >= RULES.bulkExportsPerDay) flags.push(flag('bulk_export', rows, null, `${rows.length} exports on ${key.split(' ')[1]}`));
  }
  return flags;
}

/**
 * A plate on no list, looked up without a case number and under no hold (a hold names its
 * case): one flag per user and plate.
 */
function plateOnNoList(sorted: readonly Lookup[], ctx: ReviewContext): Flag[] {
  const rows = sorted.filter((l) => l.plate !== null && !hasCase(l) && !ctx.listedPlates.has(l.plate) && !ctx.heldPlates.has(l.plate));
  return [...groupBy(rows, (l) => `${l.userId} ${l.plate}`).values()].map((group) => {
    const plate = shown(group);
    return flag('plate_on_no_list', group, plate, `${plate} is on no watchlist and was looked up ${group.length} time(s) without a case number`);
  });
}
