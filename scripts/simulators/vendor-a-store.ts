import { localDigits } from './local-time.ts';
import { chance } from './plates.ts';
import type { PlateRead, Rng } from './plates.ts';
import type { PlateEntry } from './vendor-a-xml.ts';

/**
 * The camera's read memory and its pull semantics (docs/camera-formats.md "vendor_a pull"). Pure
 * apart from the PRNG it is given: picName assignment, cursor parsing, what a pull returns.
 */

export interface StoredRead extends PlateEntry {
  uuid: string;
  /** True time of the read (the camera's clock may be off: `read.timeMs` is what it shows). */
  trueMs: number;
}

/**
 * picName = local `YYYYMMDDhhmmss` + 2 digits of centiseconds + 2 digits of sequence: it
 * follows the camera's wall clock, so it goes back when the clock does (summer time ending
 * repeats an hour; a clock corrected backwards). Two reads in the same second keep their
 * order (bumped by one within that second).
 */
export function nextPicName(read: PlateRead, timezone: string, previous: string | undefined): string {
  const centis = String(Math.floor((read.timeMs % 1000) / 10)).padStart(2, '0');
  const seq = String(read.seq % 100).padStart(2, '0');
  const candidate = `${localDigits(read.timeMs, timezone)}${centis}${seq}`;
  if (previous !== undefined && candidate.slice(0, 14) === previous.slice(0, 14) && BigInt(candidate) <= BigInt(previous))
    return (BigInt(previous) + 1n).toString();
  return candidate;
}

export type Cursor = { kind: 'picName'; value: bigint } | { kind: 'local'; value: string } | { kind: 'instant'; ms: number };

/** The three cursor shapes seen in public clients; undefined when unreadable. */
export function parseCursor(raw: string): Cursor | undefined {
  const text = raw.trim();
  if (/^\d{14}$/.test(text)) return { kind: 'local', value: text };
  // Any other digit string compares as a picName (clients start from `0` or an old picName).
  if (/^\d{1,40}$/.test(text)) return { kind: 'picName', value: BigInt(text) };
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : { kind: 'instant', ms };
  }
  return undefined;
}

export function isAfter(entry: StoredRead, cursor: Cursor): boolean {
  switch (cursor.kind) {
    case 'picName':
      return BigInt(entry.picName) > cursor.value;
    case 'local':
      // ExNVR sends "last time + 1 s" in camera local time: same second or later is new.
      return entry.picName.slice(0, 14) >= cursor.value;
    case 'instant':
      return entry.read.timeMs >= cursor.ms;
  }
}

/** `<picTime>` from a POST body; undefined when the body has none (then: everything). */
export function picTimeOf(body: string): string | undefined {
  const m = /<picTime>([^<]*)<\/picTime>/.exec(body);
  return m?.[1];
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const a = items[i] as T;
    items[i] = items[j] as T;
    items[j] = a;
  }
  return items;
}

export interface PullOptions {
  limit: number;
  /** Chance of appending an exact copy of an old entry. */
  oldCopyRate: number;
}

/**
 * What a pull returns: the oldest `limit` entries after the cursor, in shuffled order,
 * sometimes followed by a copy of an entry the client already has.
 */
export function selectForPull(store: readonly StoredRead[], cursor: Cursor | undefined, options: PullOptions, rng: Rng): StoredRead[] {
  const newer = cursor ? store.filter((e) => isAfter(e, cursor)) : [...store];
  newer.sort((a, b) => (BigInt(a.picName) < BigInt(b.picName) ? -1 : 1));
  const page = shuffle(newer.slice(0, options.limit), rng);
  const older = cursor ? store.filter((e) => !isAfter(e, cursor)) : [];
  if (older.length > 0 && chance(rng, options.oldCopyRate)) {
    page.push(older[Math.floor(rng() * older.length)] as StoredRead);
  }
  return page;
}
