import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { classifyAddress } from '../network/lan-address.ts';

/**
 * The appliance's LAN interfaces for the discovery probe: IPv4 (WS-Discovery's group is
 * IPv4 here), not loopback, and in a private or link-local range. A public address (an
 * uplink with a routable IP) is never probed from: discovery is for the camera network.
 */
export function lanInterfaceAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  const out: string[] = [];
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal) continue;
      if (classifyAddress(info.address) === 'lan' && !info.address.startsWith('127.')) out.push(info.address);
    }
  }
  return out;
}
