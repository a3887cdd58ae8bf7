import type { PlatformDeps } from '../platform/deps.ts';

/**
 * What a collector verb needs: the database, time, a logger and the configuration. The CLI
 * builds one without the image store or load monitor, which no verb here touches.
 */
export type CollectorContext = Pick<PlatformDeps, 'db' | 'clock' | 'log' | 'config'>;

/**
 * The actor recorded as `created_by` / `revoked_by` / audit `actor_user_id` for actions run
 * from the CLI, before admin users exist. A fixed, well-known value (the nil UUID) so those
 * rows are easy to find later. `collectors.created_by` references `users(id)`, so there the
 * system actor is stored as NULL instead (see docs/collectors.md).
 */
export const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

/** Who performs an admin action: a user id, or SYSTEM_ACTOR_ID for the CLI. */
export interface Actor {
  userId: string;
}

export const SYSTEM_ACTOR: Actor = { userId: SYSTEM_ACTOR_ID };

/** `collectors.created_by` has a foreign key to users: the system actor has no row there. */
export function userReference(actor: Actor): string | null {
  return actor.userId === SYSTEM_ACTOR_ID ? null : actor.userId;
}

/** Milliseconds in an hour, for lifetimes given in hours. */
export const HOUR_MS = 3_600_000;

export function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path or CLI id that is not a UUID cannot name a row; checked before the database casts it. */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
