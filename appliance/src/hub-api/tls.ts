import type { ConnectionOptions } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';

/**
 * The one place the appliance decides how it speaks TLS to the hub. Every hub call
 * (enrollment, heartbeat, acks, uploads) goes through an agent made here.
 * - TLS 1.3 minimum: the hub is ours and runs a current Node; an older protocol offered on
 *   the path to it means something in between is downgrading the connection.
 * - CAs: Node's bundled roots with certificate and host name checks on, as the hub clients
 *   always used (no private CA, no `rejectUnauthorized: false`). Plain http stays possible
 *   for a hub on the LAN and for tests; these options only apply to https.
 */
export const HUB_TLS: ConnectionOptions = { minVersion: 'TLSv1.3', rejectUnauthorized: true };

export interface HubAgentOptions {
  /** Parallel connections to the hub; the uplink keeps one batch in flight. */
  connections?: number;
  /** TCP + TLS handshake bound; 10 s: a hub that far away is as good as unreachable. */
  connectTimeoutMs?: number;
}

export function createHubAgent({ connections, connectTimeoutMs = 10_000 }: HubAgentOptions = {}): Agent {
  return new Agent({ ...(connections !== undefined ? { connections } : {}), connect: { ...HUB_TLS, timeout: connectTimeoutMs } });
}

let sharedAgent: Dispatcher | undefined;

/**
 * The agent for calls whose caller passes none (heartbeat, acks, enrollment): one per
 * process, like undici's global dispatcher it replaces, but with the hub TLS policy. Its
 * idle sockets are unref'd by undici, so it never keeps the process alive.
 */
export function defaultHubAgent(): Dispatcher {
  sharedAgent ??= createHubAgent();
  return sharedAgent;
}
