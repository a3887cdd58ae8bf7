import { createDiscovery, type Discovery } from './discovery.ts';
import { lanInterfaceAddresses } from './lan-interfaces.ts';
import { probeLan, type ProbeTarget } from './probe.ts';

export interface LanDiscoveryOptions {
  now(): number;
  log?: { warn(obj: Record<string, unknown>, msg: string): void };
  /** Default the ONVIF multicast group; tests and the demo point it at a simulator. */
  target?: ProbeTarget;
  /** Default the appliance's LAN IPv4 interfaces. */
  interfaces?: () => readonly string[];
  /** Default 3 s: ONVIF devices answer within a random 0-500 ms delay; slow ones within 2 s. */
  windowMs?: number;
  minIntervalMs?: number;
}

/** The discovery the setup page uses: the real probe on the real (or given) interfaces. */
export function createLanDiscovery(options: LanDiscoveryOptions): Discovery {
  return createDiscovery({
    now: options.now,
    interfaces: options.interfaces ?? (() => lanInterfaceAddresses()),
    probe: (interfaces) =>
      probeLan({
        interfaces,
        windowMs: options.windowMs ?? 3_000,
        ...(options.target ? { target: options.target } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
    ...(options.minIntervalMs !== undefined ? { minIntervalMs: options.minIntervalMs } : {}),
  });
}
