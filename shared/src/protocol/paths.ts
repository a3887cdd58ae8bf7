/**
 * Every path an appliance calls on the hub, written once: the hub registers its routes with
 * these and the appliance's hub client (appliance/src/hub-api/) builds its URLs from them.
 * Bodies are the zod schemas beside this file (collector.ts, batch.ts).
 */

/** Claim code + hardware id -> enrollment (unauthenticated, rate-limited per address). */
export const CLAIM_PATH = '/api/v1/collectors/claim';
/** Provisioning token -> enrollment (re-enrollment of a known collector). */
export const PROVISION_PATH = '/api/v1/collectors/provision';
/** Older appliances call the short forms; the hub answers both (hub/src/collectors/routes.ts). */
export const CLAIM_SHORT_PATH = '/api/v1/claim';
export const PROVISION_SHORT_PATH = '/api/v1/provision';
export const CLAIM_PATHS = [CLAIM_PATH, CLAIM_SHORT_PATH] as const;
export const PROVISION_PATHS = [PROVISION_PATH, PROVISION_SHORT_PATH] as const;

/** Status in, pending signed commands out (config_update, wipe, rotate_key ride in here). */
export const HEARTBEAT_PATH = '/api/v1/heartbeat';

/** The hub's route pattern for a command acknowledgement. */
export const COMMAND_ACK_ROUTE = '/api/v1/commands/:id/ack';
export const commandAckPath = (commandId: string): string => `/api/v1/commands/${encodeURIComponent(commandId)}/ack`;

/** Multipart detection batch (batch.ts). The `events` form is an alias of the same operation. */
export const BATCH_PATH = '/api/v1/detections/batch';
export const BATCH_PATHS = [BATCH_PATH, '/api/v1/events/batch'] as const;
