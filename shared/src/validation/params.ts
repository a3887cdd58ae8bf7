import { z } from 'zod';
import { safeText, textProblem } from '../text/hostile-text.ts';

/**
 * The values both servers take from outside and hand to a database, checked so that no
 * value the database would refuse gets past the edge (docs/security.md "Hostile input"):
 * a refusal there is a 500, here it is a 400 naming the field.
 */

/** PostgreSQL's `bigint` ceiling: ids and cursors above it fail in the database, not here. */
export const MAX_BIGINT = 9223372036854775807n;

/** True for a decimal id the database's `bigint` identity columns can hold (1 and up). */
export function isBigintId(value: string): boolean {
  if (!/^[1-9]\d{0,18}$/.test(value)) return false;
  return BigInt(value) <= MAX_BIGINT;
}

/** A row id of a `bigint` identity column, as it travels (a decimal string). */
export const bigintId = z.string().refine(isBigintId, 'must be an id, a whole number from 1 to 9223372036854775807');

/** A UUID (collectors, users, watchlists). */
export const uuid = z.string().uuid('must be a uuid');

/**
 * The calendar range every time from a client must fall in: from 1970 (nothing the system
 * stores is older) to the end of 9999 (four-digit years; JavaScript and PostgreSQL both hold
 * it). Year 0, six-digit years and times past JavaScript's range are refused, not stored.
 */
export const EARLIEST_TIME = new Date('1970-01-01T00:00:00.000Z');
export const LATEST_TIME = new Date('9999-12-31T23:59:59.999Z');

/** At most nine fractional digits (nanoseconds): a 300-digit fraction is noise, not a time. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Why an ISO 8601 time is refused, or undefined when it is a real moment in the range. */
export function timeProblem(value: string): string | undefined {
  if (!ISO_TIME.test(value)) return 'must be an ISO 8601 time with an offset, e.g. 2026-11-24T10:00:00Z';
  const [date] = value.split('T') as [string];
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  if (y < 1970 || y > 9999) return 'must be between 1970-01-01 and 9999-12-31';
  // Date.parse rolls 2026-02-30 over to March; a calendar check keeps it a refusal.
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return 'is not a calendar day';
  const at = Date.parse(value);
  if (Number.isNaN(at)) return 'is not a valid time';
  if (at < EARLIEST_TIME.getTime() || at > LATEST_TIME.getTime()) return 'must be between 1970-01-01 and 9999-12-31';
  return undefined;
}

/** An ISO 8601 time with an offset inside the calendar range, as a string. */
export const isoTime = z
  .string()
  .max(40)
  .superRefine((value, ctx) => {
    const problem = timeProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The same, turned into a Date. */
export const isoTimeAsDate = isoTime.transform((value) => new Date(value));

/** A calendar day, YYYY-MM-DD, inside the calendar range. */
export const calendarDay = z.string().superRefine((value, ctx) => {
  const problem = /^\d{4}-\d{2}-\d{2}$/.test(value) ? timeProblem(`${value}T00:00:00Z`) : 'must be a day, YYYY-MM-DD';
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Text from outside: no NUL, no lone surrogate (see text/hostile-text.ts), at most `max` characters. */
export const text = (max: number) => safeText(z.string().max(max));

export { textProblem };
