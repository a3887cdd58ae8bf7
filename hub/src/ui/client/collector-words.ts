/**
 * The collectors page's words for a collector's state, pure (no DOM) so they are table-tested
 * in collector-words.test.ts. Each says one fact at a time, so two facts on the same page never
 * read as a contradiction.
 */

export interface CollectorStateFacts {
  status: string;
  connectivity: 'online' | 'offline';
  heartbeats_arriving: boolean;
  pending_replacement: boolean;
}

/**
 * `disabled` is the status's name on the wire (docs/collectors.md "Suspend and resume"); people
 * say suspended. Suspension refuses uploads only: the box still heartbeats, so whether it is
 * heard is said apart ("suspended, heartbeats arriving"), never as "offline" when it is heard.
 */
export function collectorStatusWords(c: CollectorStateFacts): string {
  const replacement = c.pending_replacement ? ', replacement pending' : '';
  if (c.status === 'disabled') return `suspended, ${c.heartbeats_arriving ? 'heartbeats arriving' : 'no heartbeats'}${replacement}`;
  const online = c.status === 'active' ? `, ${c.connectivity}` : '';
  return `${c.status}${online}${replacement}`;
}

/**
 * The cameras table with no camera managed from the hub. The collectors list counts the cameras
 * the box reports in its heartbeat (`cameras_total`), set up on the appliance itself, so that
 * count is said here too: "No camera" beside "3 of 3 cameras online" would read as a contradiction.
 */
export function noCameraWords(onAppliance: number | undefined): string {
  if (onAppliance === undefined || onAppliance <= 0) return 'No camera is managed from the hub yet: add one below.';
  const configured = onAppliance === 1 ? '1 camera is configured on the appliance itself' : `${onAppliance} cameras are configured on the appliance itself`;
  return `${configured}; none is managed from the hub yet: add one below to manage it here.`;
}
