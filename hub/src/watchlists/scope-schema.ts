/**
 * The scope as the API takes it (docs/watchlists.md "Scopes"). Every value is bounded: at most
 * 50 sites, 100 collectors and 200 cameras, hours as HH:MM (00:00-23:59), days named once, and
 * a time zone Intl knows. Hostile input is a 400 naming the field.
 */
import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';
import { UUID_PATTERN } from '@alpr/shared/validation/uuid';
import { watchlistKinds, watchlistModes } from '../db/schema/watchlists.ts';
import { SCOPE_DAYS } from './scope.ts';

export const MAX_SCOPE_SITES = 50;
export const MAX_SCOPE_COLLECTORS = 100;
export const MAX_SCOPE_CAMERAS = 200;
export const MAX_IGNORE_LISTS = 20;

const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID');
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM between 00:00 and 23:59');

/** A zone Intl accepts (IANA names such as Europe/Paris, or UTC); at most 64 characters. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const unique = <T>(items: readonly T[], key: (item: T) => string = String): boolean => new Set(items.map(key)).size === items.length;

export const scopeSchema = z
  .object({
    sites: z.array(uuid).max(MAX_SCOPE_SITES).refine(unique, 'a site is named twice').optional(),
    collectors: z.array(uuid).max(MAX_SCOPE_COLLECTORS).refine(unique, 'a collector is named twice').optional(),
    cameras: z
      .array(z.object({ collector_id: uuid, camera_id: safeText(z.string().trim().min(1).max(100)) }).strict())
      .max(MAX_SCOPE_CAMERAS)
      .refine((c) => unique(c, (x) => `${x.collector_id} ${x.camera_id}`), 'a camera is named twice')
      .optional(),
    direction: z.enum(['entering', 'exiting', 'either']).optional(),
    days: z.array(z.enum(SCOPE_DAYS)).min(1, 'name at least one day, or leave days out for every day').max(7).refine(unique, 'a day is named twice').optional(),
    hours: z.object({ from: hhmm, to: hhmm }).strict().optional(),
    time_zone: z.string().max(64).refine(isTimeZone, 'not a time zone (an IANA name such as Europe/Paris)').optional(),
  })
  .strict()
  .refine((s) => (s.days === undefined && s.hours === undefined) || s.time_zone !== undefined, {
    message: 'days and hours need a time_zone (an IANA name such as Europe/Paris)',
    path: ['time_zone'],
  });

/** The rule fields of a list's create and update bodies. */
export const ruleFields = {
  kind: z.enum(watchlistKinds).optional(),
  mode: z.enum(watchlistModes).optional(),
  /** null: no scope (everywhere, always, either way). */
  scope: scopeSchema.nullable().optional(),
  /** The ignore lists this list honours (replaces the set). */
  ignore_lists: z.array(uuid).max(MAX_IGNORE_LISTS).refine(unique, 'an ignore list is named twice').optional(),
};
