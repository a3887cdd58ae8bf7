/**
 * The appliance's own API on its LAN port, written once as shared/src/protocol/paths.ts writes
 * the paths it calls on the hub: the camera push receiver (cameras/vendor-a-push.ts) and the
 * diagnostics status (diagnostics/routes.ts) register these, the local server guards them, and
 * the tests build URLs with them. Imports nothing.
 */

/** Cameras and plate readers post here: `/api/v1/ingest/<vendor_a|vendor_b|auto|…>`. */
export const PUSH_PREFIX = '/api/v1/ingest/';
export const PUSH_ROUTE = `${PUSH_PREFIX}:vendor`;
export const pushPath = (vendor: string): string => `${PUSH_PREFIX}${encodeURIComponent(vendor)}`;
/** Read-only diagnostics as JSON. */
export const STATUS_PATH = '/api/v1/status';
