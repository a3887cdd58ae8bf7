/**
 * The WS-Discovery side of a simulated ONVIF camera: answers a Probe for
 * `NetworkVideoTransmitter` (or for any type, when the Probe names none) with a unicast
 * ProbeMatches to the sender, as ONVIF Core §7.3 describes. Tests bind it to 127.0.0.1 on a
 * free port and point the appliance's probe there; `multicast: true` also joins the ONVIF
 * group 239.255.255.250:3702 where the host allows it (the demo), and quietly does without
 * it where it does not.
 */
import { randomUUID } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { childElement, childText, parseXmlSafely } from '@alpr/shared/adapters/xml';

export interface WsDiscoveryDevice {
  /** `urn:uuid:…`; default a random one. */
  endpoint?: string;
  /** Device service URL, e.g. `http://127.0.0.1:8081/onvif/device_service`. */
  xaddr: string;
  manufacturer: string;
  model: string;
}

export interface WsDiscoveryOptions {
  device: WsDiscoveryDevice;
  /** Default 127.0.0.1. */
  bindAddress?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Also join 239.255.255.250 on port 3702 (best effort). */
  multicast?: boolean;
  /** ONVIF devices wait a random 0-500 ms before answering; default up to 50 ms here. */
  maxAnswerDelayMs?: number;
}

export interface WsDiscoveryResponder {
  address: string;
  port: number;
  /** Whether the multicast group was joined. */
  multicast: boolean;
  probes: number;
  close(): Promise<void>;
}

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function probeMatches(relatesTo: string, device: Required<WsDiscoveryDevice>): string {
  const scope = (key: string, value: string): string => `onvif://www.onvif.org/${key}/${encodeURIComponent(value)}`;
  const scopes = [
    scope('type', 'video_encoder'),
    scope('Profile', 'Streaming'),
    scope('hardware', device.model),
    scope('name', `${device.manufacturer} ${device.model}`),
    scope('location', 'city'),
  ].join(' ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" xmlns:dn="http://www.onvif.org/ver10/network/wsdl">
<env:Header><wsa:MessageID>urn:uuid:${randomUUID()}</wsa:MessageID><wsa:RelatesTo>${escapeXml(relatesTo)}</wsa:RelatesTo><wsa:To env:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:To><wsa:Action env:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches</wsa:Action><d:AppSequence env:mustUnderstand="true" MessageNumber="1" InstanceId="1"/></env:Header>
<env:Body><d:ProbeMatches><d:ProbeMatch><wsa:EndpointReference><wsa:Address>${escapeXml(device.endpoint)}</wsa:Address></wsa:EndpointReference><d:Types>dn:NetworkVideoTransmitter</d:Types><d:Scopes>${escapeXml(scopes)}</d:Scopes><d:XAddrs>${escapeXml(device.xaddr)}</d:XAddrs><d:MetadataVersion>10</d:MetadataVersion></d:ProbeMatch></d:ProbeMatches></env:Body>
</env:Envelope>`;
}

/** The Probe's MessageID when the datagram is a Probe this device matches. */
function probeId(msg: Buffer): string | undefined {
  const parsed = parseXmlSafely(msg, { maxBytes: 16 * 1024 });
  if (!parsed.ok || parsed.rootName !== 'Envelope') return undefined;
  const probe = childElement(childElement(parsed.root, 'Body'), 'Probe');
  if (!probe) return undefined;
  const types = childText(probe, 'Types')?.trim() ?? '';
  if (types !== '' && !/(^|[\s:])NetworkVideoTransmitter(\s|$)/.test(types)) return undefined;
  return childText(childElement(parsed.root, 'Header'), 'MessageID')?.trim() || undefined;
}

function bind(socket: Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

export async function startWsDiscoveryResponder(options: WsDiscoveryOptions): Promise<WsDiscoveryResponder> {
  const device: Required<WsDiscoveryDevice> = { endpoint: `urn:uuid:${randomUUID()}`, ...options.device };
  const maxDelay = options.maxAnswerDelayMs ?? 50;
  const sockets: Socket[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let probes = 0;
  const answer =
    (socket: Socket) =>
    (msg: Buffer, from: RemoteInfo): void => {
      const id = probeId(msg);
      if (!id) return;
      probes += 1;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          socket.send(Buffer.from(probeMatches(id, device), 'utf8'), from.port, from.address, () => undefined);
        },
        Math.floor(Math.random() * maxDelay),
      );
      timers.add(timer);
    };

  const address = options.bindAddress ?? '127.0.0.1';
  const unicast = createSocket({ type: 'udp4', reuseAddr: true });
  unicast.on('error', () => undefined);
  await bind(unicast, options.port ?? 0, address);
  unicast.on('message', answer(unicast));
  sockets.push(unicast);

  let joined = false;
  if (options.multicast) {
    const group = createSocket({ type: 'udp4', reuseAddr: true });
    group.on('error', () => undefined);
    try {
      await bind(group, 3702, '0.0.0.0');
      group.addMembership('239.255.255.250');
      group.on('message', answer(group));
      sockets.push(group);
      joined = true;
    } catch {
      group.close();
    }
  }

  return {
    address,
    port: unicast.address().port,
    multicast: joined,
    get probes() {
      return probes;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(sockets.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
