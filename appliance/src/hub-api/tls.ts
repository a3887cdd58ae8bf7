import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';

/**
 * The one place the appliance decides how it speaks TLS to the hub (docs/security.md "TLS
 * by default", "Certificate pinning"). Every hub call (enrollment, heartbeat, acks,
 * uploads) goes through an agent made here.
 * - TLS 1.3 only: the hub is ours and runs a current Node; an older protocol offered on the
 *   path to it means something in between is downgrading the connection.
 * - Not pinned (a hub with a publicly trusted certificate): Node's bundled roots with
 *   certificate and host name checks on.
 * - Pinned (a hub with its own self-signed certificate, pinned at claim): the certificate
 *   presented must have one of the pinned SHA-256 fingerprints, whatever CA or name it
 *   carries; anything else is refused before a byte of the request (and its API key) is sent.
 * Plain http is possible only to a loopback hub (config/hub-url-rule.ts); these options
 * only apply to https.
 */
export const HUB_TLS: ConnectionOptions = { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', rejectUnauthorized: true };

/** The pins an agent checks, read at every new connection so a rotation applies at once. */
export interface HubTrust {
  /** Accepted SHA-256 fingerprints (normalised, colon form); empty: not pinned. */
  pins(): readonly string[];
  /** A pinned connection was made with this certificate (rotation: the switch is seen). */
  seen?(sha256: string): void;
  /** A certificate outside the pins was presented and refused (diagnostics and the log). */
  refused?(sha256: string): void;
}

export const HUB_CERTIFICATE_CHANGED = 'HUB_CERTIFICATE_CHANGED';

/** The refusal every caller turns into its diagnostic (`CODE: message`, request.ts). */
export class HubCertificateChangedError extends Error {
  readonly code = HUB_CERTIFICATE_CHANGED;
  constructor(
    readonly presented: string,
    readonly pinned: readonly string[],
  ) {
    super(
      `the hub presented a certificate with SHA-256 ${presented}, not the pinned ${pinned.join(' or ')}: refused (nothing was sent). ` +
        'If the hub certificate was replaced on purpose, the hub should have announced it first; re-claim this appliance ' +
        '(docs/security.md "Rotating the hub certificate"). Otherwise something is impersonating the hub.',
    );
    this.name = 'HubCertificateChangedError';
  }
}

export interface HubAgentOptions {
  /** Parallel connections to the hub; the uplink keeps one batch in flight. */
  connections?: number;
  /** TCP + TLS handshake bound; 10 s: a hub that far away is as good as unreachable. */
  connectTimeoutMs?: number;
  trust?: HubTrust;
}

export function createHubAgent({ connections, connectTimeoutMs = 10_000, trust }: HubAgentOptions = {}): Agent {
  const options = connections !== undefined ? { connections } : {};
  if (!trust) return new Agent({ ...options, connect: { ...HUB_TLS, timeout: connectTimeoutMs } });
  return new Agent({ ...options, connect: pinningConnector(trust, connectTimeoutMs) });
}

/** Connects with CA checks when nothing is pinned, by fingerprint when something is. */
export function pinningConnector(trust: HubTrust, connectTimeoutMs: number): buildConnector.connector {
  const verified = buildConnector({ ...HUB_TLS, timeout: connectTimeoutMs });
  // No session cache: a resumed session is a shortcut past the certificate this checks.
  const byFingerprint = buildConnector({ ...HUB_TLS, rejectUnauthorized: false, maxCachedSessions: 0, timeout: connectTimeoutMs });
  return (opts, callback) => {
    const pins = trust.pins();
    if (opts.protocol !== 'https:' || pins.length === 0) {
      verified(opts, callback);
      return;
    }
    byFingerprint(opts, (error, socket) => {
      if (error !== null) return callback(error, null);
      const presented = (socket as TLSSocket).getPeerCertificate().fingerprint256;
      if (typeof presented !== 'string' || !pins.includes(presented)) {
        socket.destroy();
        trust.refused?.(String(presented));
        return callback(new HubCertificateChangedError(String(presented), pins), null);
      }
      trust.seen?.(presented);
      return callback(null, socket);
    });
  };
}

let sharedAgent: Dispatcher | undefined;

/**
 * The agent for calls whose caller passes none: one per process, not pinned. The running
 * appliance passes its own pinned agent (runtime/appliance.ts); this one serves calls made
 * before any pin exists. Its idle sockets are unref'd by undici: it never keeps the process alive.
 */
export function defaultHubAgent(): Dispatcher {
  sharedAgent ??= createHubAgent();
  return sharedAgent;
}
