/**
 * The WS-Discovery probe on the wire: one UDP socket per LAN interface, one Probe each, and
 * whatever answers within the window. Every failure (an interface that went away, a send
 * refused) narrows the search; none of them is an error for the person at the page, who
 * gets the list of what answered, possibly empty.
 */
import { randomUUID } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { parseProbeMatches, probeMessage, type ProbeMatch } from './ws-discovery-xml.ts';

/** ONVIF's multicast group and port (WS-Discovery, ONVIF Core §7.3). */
export const WS_DISCOVERY_GROUP = '239.255.255.250';
export const WS_DISCOVERY_PORT = 3702;

export interface ProbeTarget {
  address: string;
  port: number;
}

export interface ProbeOptions {
  /** Default the ONVIF group; a test points it at a simulator on 127.0.0.1. */
  target?: ProbeTarget;
  /** Local IPv4 addresses to send from (one socket each). */
  interfaces: readonly string[];
  /** How long answers are collected. */
  windowMs: number;
  log?: { warn(obj: Record<string, unknown>, msg: string): void };
}

/** One answering device: the match plus the address its answer came from. */
export interface DiscoveredDevice extends ProbeMatch {
  /** Host of the first service URL, else the UDP source address. */
  address: string;
  /** Port of the first service URL when it is not the scheme's default. */
  port?: number;
}

/** 64 distinct devices are more than any plate-reading site has; the rest are ignored. */
const MAX_DEVICES = 64;

function addressOf(match: ProbeMatch, from: RemoteInfo): { address: string; port?: number } {
  const first = match.xaddrs[0];
  if (first) {
    const url = new URL(first);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return { address: host, ...(url.port !== '' ? { port: Number(url.port) } : {}) };
  }
  return { address: from.address };
}

async function openSocket(localAddress: string): Promise<Socket> {
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, localAddress, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return socket;
}

export async function probeLan(options: ProbeOptions): Promise<DiscoveredDevice[]> {
  const target = options.target ?? { address: WS_DISCOVERY_GROUP, port: WS_DISCOVERY_PORT };
  const messageId = `urn:uuid:${randomUUID()}`;
  const payload = Buffer.from(probeMessage(messageId), 'utf8');
  const found = new Map<string, DiscoveredDevice>();
  const sockets: Socket[] = [];

  const onMessage = (msg: Buffer, from: RemoteInfo): void => {
    const matches = parseProbeMatches(msg, messageId);
    for (const match of matches ?? []) {
      if (found.size >= MAX_DEVICES) return;
      const key = match.endpoint || `${from.address}`;
      if (!found.has(key)) found.set(key, { ...match, ...addressOf(match, from) });
    }
  };

  for (const local of options.interfaces) {
    try {
      const socket = await openSocket(local);
      sockets.push(socket);
      socket.on('message', onMessage);
      // A late socket error (ICMP unreachable on some stacks) must not crash the appliance.
      socket.on('error', (error) => options.log?.warn({ interface: local, err: error.message }, 'discovery socket error'));
      if (isMulticast(target.address)) {
        // TTL 1: the probe stays on the local link, never routed off the LAN.
        socket.setMulticastTTL(1);
        socket.setMulticastInterface(local);
      }
      await new Promise<void>((resolve) =>
        socket.send(payload, target.port, target.address, (error) => {
          if (error) options.log?.warn({ interface: local, err: error.message }, 'discovery probe not sent');
          resolve();
        }),
      );
    } catch (error) {
      options.log?.warn({ interface: local, err: error instanceof Error ? error.message : String(error) }, 'discovery: interface skipped');
    }
  }
  if (sockets.length > 0) await new Promise((resolve) => setTimeout(resolve, options.windowMs));
  for (const socket of sockets) socket.close();
  return [...found.values()].sort((a, b) => a.address.localeCompare(b.address, 'en', { numeric: true }));
}

const isMulticast = (address: string): boolean => {
  const first = Number(address.split('.')[0]);
  return first >= 224 && first <= 239;
};
