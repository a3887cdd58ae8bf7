/**
 * Who performs a change: a user, or the system actor for what the CLI and the hub itself
 * do. Every domain that audits or stamps `created_by` names its actor this way.
 */

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
