import type { HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import type { UplinkState } from '../uplink/uplink-state.ts';

/**
 * The hub's standing refusal of this collector, in words for the person at the device
 * (diagnostics page, `/api/v1/status`). Not an error on this box: nothing here can fix it,
 * but without it a suspended site looks like a broken uplink and a replaced box like a bad key.
 * - replaced (401 `collector_replaced`, seen by the uplink or the heartbeat): for good.
 * - suspended (403 `collector_suspended` or `collector_status: disabled`): until resumed.
 */
export interface HubNotice {
  kind: 'suspended' | 'replaced';
  /** ISO time the suspension was first seen; null when unknown or replaced. */
  since: string | null;
  message: string;
}

export const REPLACED_MESSAGE = 'This box was replaced by another device on the hub; it no longer uploads';

export const suspendedMessage = (since: string | null): string =>
  `Suspended by the hub${since ? ` since ${since}` : ''}: readings are kept here and will be sent when the site is resumed`;

type HeartbeatView = Pick<HeartbeatState, 'replaced' | 'collectorStatus'>;

/** Pure: the notice to show, or null when the hub takes this box's uploads. */
export function hubNotice(uplink: UplinkState | null | undefined, heartbeat?: HeartbeatView | null): HubNotice | null {
  if (uplink?.replaced || heartbeat?.replaced) return { kind: 'replaced', since: null, message: REPLACED_MESSAGE };
  if (uplink?.suspended || heartbeat?.collectorStatus === 'disabled') {
    const since = typeof uplink?.suspendedSinceMs === 'number' ? new Date(uplink.suspendedSinceMs).toISOString() : null;
    return { kind: 'suspended', since, message: suspendedMessage(since) };
  }
  return null;
}
