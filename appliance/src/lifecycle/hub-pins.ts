import type { HubTrust } from '../hub-api/tls.ts';
import type { StoredHubPins } from '../keystore/keystore.ts';

/**
 * The hub certificate pins of a claimed appliance (docs/security.md "Certificate pinning",
 * "Rotating the hub certificate"), as the hub agent reads them on every new connection.
 * - `current`: pinned at claim. Absent: the hub's certificate is publicly trusted and is
 *   checked against the CAs instead.
 * - `next`: announced by a signed trust_hub_certificate command. Until the appliance first
 *   meets it both are accepted (the hub may restart with the new certificate at any time);
 *   from that connection on only `next`, which becomes `current`.
 * Every change is written to the sealed credentials file before it is relied on.
 */
export interface HubPins extends HubTrust {
  state(): StoredHubPins & { lastRefused?: { sha256: string; at: string } };
  /** Stores `sha256` as the next pin (idempotent). */
  announce(sha256: string): Promise<'added' | 'already_current' | 'already_next' | 'not_pinned'>;
  /** The promotion (next -> current) in flight, for tests and a clean stop. */
  settled(): Promise<void>;
}

export interface HubPinsDeps {
  persist(pins: StoredHubPins): Promise<void>;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  now: () => Date;
}

export function createHubPins(initial: StoredHubPins, deps: HubPinsDeps): HubPins {
  let pins: StoredHubPins = { ...initial };
  let lastRefused: { sha256: string; at: string } | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = (next: StoredHubPins): Promise<void> => {
    writing = writing.then(() => deps.persist(next));
    return writing;
  };
  return {
    pins: () => [pins.current, pins.next].filter((p): p is string => p !== undefined),
    seen(sha256) {
      if (sha256 !== pins.next || pins.current === sha256) return;
      // The hub switched: from now on only the new certificate. In memory at once (the very
      // next connection must not accept the old one), on disk right after.
      const previous = pins.current;
      pins = { current: sha256 };
      deps.log.info({ certificate_sha256: sha256, previous_sha256: previous ?? null }, 'hub switched to the announced certificate: old pin dropped');
      write(pins).catch((err: unknown) => deps.log.error({ err }, 'hub certificate pin not stored: the old pin comes back after a restart'));
    },
    refused(sha256) {
      if (lastRefused?.sha256 !== sha256) {
        deps.log.error(
          { presented_sha256: sha256, pinned_sha256: [pins.current, pins.next].filter(Boolean) },
          'hub certificate changed: refused (docs/security.md "Rotating the hub certificate")',
        );
      }
      lastRefused = { sha256, at: deps.now().toISOString() };
    },
    async announce(sha256) {
      // A CA-checked hub is not pinned: pinning the next certificate alone would refuse the current one.
      if (pins.current === undefined) return 'not_pinned';
      if (pins.current === sha256) return 'already_current';
      if (pins.next === sha256) return 'already_next';
      const next = { ...pins, next: sha256 };
      await write(next);
      pins = next;
      return 'added';
    },
    state: () => ({ ...pins, ...(lastRefused ? { lastRefused } : {}) }),
    settled: () => writing,
  };
}
