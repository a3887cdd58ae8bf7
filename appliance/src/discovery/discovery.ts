/**
 * "Find cameras" (docs/setup-page.md): one probe at a time, at most one per `minIntervalMs`
 * for the whole appliance (a multicast probe reaches every device on the LAN; a page
 * reloaded in a loop must not turn the appliance into a noise source). Answers outside the
 * LAN ranges are dropped, and each is marked when a configured camera already has its address.
 */
import { isLanAddress } from '../network/lan-address.ts';
import type { DiscoveredDevice } from './probe.ts';

export interface DiscoveryResult {
  devices: DiscoveredDevice[];
  /** When the probe ran (ms). */
  at: number;
  /** Interfaces the probe went out on; empty = no LAN interface, nothing was sent. */
  interfaces: readonly string[];
}

export type DiscoveryOutcome = { ok: true; result: DiscoveryResult } | { ok: false; retryAfterSeconds: number; last: DiscoveryResult | undefined };

export interface DiscoveryDeps {
  probe(interfaces: readonly string[]): Promise<DiscoveredDevice[]>;
  interfaces(): readonly string[];
  now(): number;
  /** Default 10 s. */
  minIntervalMs?: number;
}

export interface Discovery {
  run(): Promise<DiscoveryOutcome>;
  last(): DiscoveryResult | undefined;
}

export const DEFAULT_DISCOVERY_INTERVAL_MS = 10_000;

export function createDiscovery(deps: DiscoveryDeps): Discovery {
  const minInterval = deps.minIntervalMs ?? DEFAULT_DISCOVERY_INTERVAL_MS;
  let last: DiscoveryResult | undefined;
  let startedAt = -Infinity;
  let running: Promise<DiscoveryResult> | undefined;
  return {
    last: () => last,
    async run() {
      // A second click while a probe is out waits for the same answers instead of a new probe.
      if (running) return { ok: true, result: await running };
      const wait = startedAt + minInterval - deps.now();
      if (wait > 0) return { ok: false, retryAfterSeconds: Math.ceil(wait / 1000), last };
      startedAt = deps.now();
      const interfaces = deps.interfaces();
      running = (async () => {
        const devices = interfaces.length === 0 ? [] : await deps.probe(interfaces);
        return { devices: devices.filter((d) => isLanAddress(d.address)), at: deps.now(), interfaces };
      })();
      try {
        last = await running;
        return { ok: true, result: last };
      } finally {
        running = undefined;
      }
    },
  };
}
