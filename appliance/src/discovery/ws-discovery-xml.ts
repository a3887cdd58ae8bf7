/**
 * ONVIF WS-Discovery messages (WS-Discovery 2005/04 as ONVIF Core §7.3 uses it): the Probe we
 * multicast, and the ProbeMatches a camera answers. Pure: strings in, values out. Answers
 * are untrusted LAN input, parsed with the same safe parser as camera payloads.
 */
import { childElement, childrenNamed, childText, parseXmlSafely } from '@alpr/shared/adapters/xml';

export const WS_DISCOVERY_ACTION_PROBE = 'http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe';
export const WS_DISCOVERY_ACTION_MATCHES = 'http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches';

/** A Probe for ONVIF video devices (`dn:NetworkVideoTransmitter`), as every ONVIF client sends it. */
export function probeMessage(messageId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" xmlns:dn="http://www.onvif.org/ver10/network/wsdl">
<s:Header><a:Action s:mustUnderstand="1">${WS_DISCOVERY_ACTION_PROBE}</a:Action><a:MessageID>${messageId}</a:MessageID><a:ReplyTo><a:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo><a:To s:mustUnderstand="1">urn:schemas-xmlsoap-org:ws:2005:04:discovery</a:To></s:Header>
<s:Body><d:Probe><d:Types>dn:NetworkVideoTransmitter</d:Types></d:Probe></s:Body>
</s:Envelope>`;
}

/** One device from a ProbeMatch, with what its scopes say about it. */
export interface ProbeMatch {
  /** `EndpointReference/Address`, usually `urn:uuid:…`: the device's stable identity. */
  endpoint: string;
  /** Service URLs (`http://192.168.1.64/onvif/device_service`); only http(s) are kept. */
  xaddrs: string[];
  manufacturer?: string;
  model?: string;
  name?: string;
}

/** Answers are small (about 1-3 KB); 64 KiB is a UDP datagram's ceiling anyway. */
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_MATCHES = 16;
const MAX_FIELD = 100;

/** `onvif://www.onvif.org/<key>/<value>` scopes, percent-decoded; a broken escape keeps the raw text. */
function scopeValues(scopes: string, key: string): string[] {
  const prefix = `onvif://www.onvif.org/${key}/`;
  return scopes
    .split(/\s+/)
    .filter((s) => s.toLowerCase().startsWith(prefix))
    .map((s) => {
      const raw = s.slice(prefix.length);
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    })
    .map((v) => cleanText(v))
    .filter((v): v is string => v !== undefined);
}

/** Printable, trimmed, bounded: these strings end up in a page and in a form. */
function cleanText(raw: string | undefined): string | undefined {
  const text = raw
    ?.replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, MAX_FIELD);
  return text ? text : undefined;
}

function httpUrls(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/\s+/)
    .filter((u) => {
      try {
        const url = new URL(u);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    })
    .slice(0, 8);
}

/**
 * The matches of one answer, or undefined when it is not a ProbeMatches relating to
 * `messageId` (another client's answers share the multicast group and must not be mixed in).
 */
export function parseProbeMatches(body: Uint8Array | string, messageId: string): ProbeMatch[] | undefined {
  const parsed = parseXmlSafely(body, { maxBytes: MAX_ANSWER_BYTES, maxElements: 500, arrayTags: ['ProbeMatch'] });
  if (!parsed.ok || parsed.rootName !== 'Envelope') return undefined;
  const header = childElement(parsed.root, 'Header');
  if (childText(header, 'RelatesTo')?.trim() !== messageId) return undefined;
  const action = childText(header, 'Action')?.trim();
  if (action !== undefined && action !== WS_DISCOVERY_ACTION_MATCHES) return undefined;
  const matches = childElement(childElement(parsed.root, 'Body'), 'ProbeMatches');
  if (!matches) return undefined;
  const out: ProbeMatch[] = [];
  for (const match of childrenNamed(matches, 'ProbeMatch').slice(0, MAX_MATCHES)) {
    const endpoint = cleanText(childText(childElement(match, 'EndpointReference'), 'Address'));
    const xaddrs = httpUrls(childText(match, 'XAddrs'));
    if (!endpoint && xaddrs.length === 0) continue;
    const scopes = childText(match, 'Scopes') ?? '';
    const name = scopeValues(scopes, 'name')[0];
    const hardware = scopeValues(scopes, 'hardware')[0];
    // `manufacturer` is not an ONVIF-defined scope but several vendors send it; otherwise the
    // name scope is usually "<MANUFACTURER> <model>" (e.g. "HIKVISION DS-2CD4A26FWD-IZS").
    const manufacturer = scopeValues(scopes, 'manufacturer')[0] ?? name?.split(/\s+/)[0];
    out.push({
      endpoint: endpoint ?? xaddrs[0] ?? '',
      xaddrs,
      ...(manufacturer ? { manufacturer } : {}),
      ...(hardware ? { model: hardware } : {}),
      ...(name ? { name } : {}),
    });
  }
  return out;
}
