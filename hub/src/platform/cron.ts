/**
 * A cron expression's numbers, bounded before node-cron sees it (issue 50 item 1).
 *
 * node-cron expands every range into an array of its numbers while it validates, with no
 * upper bound: `0-99999999999999999999 * * * *` made V8 abort the hub ("invalid size
 * error") and `0-99999999 * * * *` stalled it for over 10 s. This check is lexical and
 * allocates nothing in proportion to the numbers it reads, so it is safe on any input that
 * passed a length limit. It accepts exactly the tokens node-cron accepts (numbers, `*`, `?`,
 * ranges, steps, lists, month and weekday names, `L`, `W`, `#`); what it refuses is any
 * number outside its field, so node-cron's own expansion is then at most a few hundred items.
 */
import cron from 'node-cron';

interface Field {
  name: string;
  min: number;
  max: number;
}

const SECOND: Field = { name: 'second', min: 0, max: 59 };
const FIVE_FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  // 7 is Sunday as well as 0, as in classic cron.
  { name: 'weekday', min: 0, max: 7 },
];

/** Longer than any expression a person writes; the routes cap theirs lower still. */
export const CRON_EXPRESSION_MAX_LENGTH = 200;

/**
 * Why an expression's numbers fall outside their fields, or undefined when every number is
 * in range (the expression may still be refused by node-cron for other reasons).
 */
export function cronBoundsProblem(expression: string): string | undefined {
  if (expression.length > CRON_EXPRESSION_MAX_LENGTH) return `at most ${CRON_EXPRESSION_MAX_LENGTH} characters`;
  const trimmed = expression.trim();
  // Nicknames (@daily, @hourly...) are fixed strings node-cron maps itself.
  if (trimmed.startsWith('@')) return undefined;
  const parts = trimmed.split(/\s+/);
  const fields = parts.length === 6 ? [SECOND, ...FIVE_FIELDS] : parts.length === 5 ? FIVE_FIELDS : undefined;
  if (!fields) return `expected 5 fields (minute hour day month weekday), got ${parts.length}`;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as Field;
    const text = parts[i] as string;
    // Every run of digits is a value, a range end, a step, an `L-n` offset or a `#n` ordinal:
    // none of them is meaningful past the field's largest value.
    for (const match of text.matchAll(/\d+/g)) {
      const digits = match[0];
      // Length first: a 20-digit run is refused without being turned into a number.
      const value = digits.length > 3 ? Number.POSITIVE_INFINITY : Number(digits);
      if (value > field.max) return `${field.name}: ${digits.length > 12 ? `${digits.slice(0, 12)}…` : digits} is past ${field.max}, the largest ${field.name}`;
    }
    // A step of 0 never advances: node-cron leaves it as text, refused below by its validator.
    if (/\/0+(?!\d)/.test(text)) return `${field.name}: a step must be at least 1`;
  }
  return undefined;
}

/** Why a schedule is unusable (numbers past their fields first), or undefined when node-cron accepts it. */
export function cronScheduleProblem(expression: string): string | undefined {
  // Before node-cron, which expands every range into an array while it validates.
  const bounds = cronBoundsProblem(expression);
  if (bounds) return bounds;
  const result = cron.validateDetailed(expression);
  if (result.valid) return undefined;
  return result.errors.map((e) => `${e.field}: ${e.message}`).join('; ') || 'not a cron expression';
}
