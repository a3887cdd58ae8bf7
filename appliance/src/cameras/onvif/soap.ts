/**
 * The few ONVIF SOAP messages that find an ordinary camera's snapshot URL (docs/ordinary-cameras.md
 * "Snapshot URL"): the camera's clock, its media service, its first media profile, and that
 * profile's snapshot URI (ONVIF Device and Media service, ver10). Pure: strings in, values out.
 * Answers are untrusted LAN input, read with the same bounded parser as camera payloads.
 */
import { createHash } from 'node:crypto';
import { attributeOf, childElement, childrenNamed, childText, parseXmlSafely, textAt } from '@alpr/shared/adapters/xml';
import type { XmlValue } from '@alpr/shared/adapters/xml';

const SOAP_ENV = 'http://www.w3.org/2003/05/soap-envelope';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const PASSWORD_DIGEST = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest';
const BASE64 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-soap-message-security-1.0#Base64Binary';
export const DEVICE_NS = 'http://www.onvif.org/ver10/device/wsdl';
export const MEDIA_NS = 'http://www.onvif.org/ver10/media/wsdl';

/** SOAP answers of these four calls are a few KB; a camera's full profile list stays well under this. */
export const MAX_SOAP_ANSWER_BYTES = 256 * 1024;

export interface WsCredentials {
  username: string;
  password: string;
  /** 16 random bytes. */
  nonce: Uint8Array;
  /** The camera's time (its clock may be wrong; the token is checked against it). */
  created: Date;
}

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** WS-Security UsernameToken digest: Base64(SHA-1(nonce + created + password)). */
export function passwordDigest(nonce: Uint8Array, created: string, password: string): string {
  return createHash('sha1').update(nonce).update(created, 'utf8').update(password, 'utf8').digest('base64');
}

/** `2026-11-28T21:00:00Z`: seconds only, as cameras compare it. */
export const createdText = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

function securityHeader(auth: WsCredentials | undefined): string {
  if (!auth) return '';
  const created = createdText(auth.created);
  return `<s:Header><wsse:Security s:mustUnderstand="1" xmlns:wsse="${WSSE}" xmlns:wsu="${WSU}"><wsse:UsernameToken><wsse:Username>${escapeXml(auth.username)}</wsse:Username><wsse:Password Type="${PASSWORD_DIGEST}">${passwordDigest(auth.nonce, created, auth.password)}</wsse:Password><wsse:Nonce EncodingType="${BASE64}">${Buffer.from(auth.nonce).toString('base64')}</wsse:Nonce><wsu:Created>${created}</wsu:Created></wsse:UsernameToken></wsse:Security></s:Header>`;
}

/** One SOAP 1.2 request: `body` is the call's element, with its namespace declared on it. */
export function envelope(body: string, auth?: WsCredentials): string {
  return `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="${SOAP_ENV}">${securityHeader(auth)}<s:Body>${body}</s:Body></s:Envelope>`;
}

export const getSystemDateAndTime = (): string => envelope(`<GetSystemDateAndTime xmlns="${DEVICE_NS}"/>`);
export const getCapabilities = (auth?: WsCredentials): string =>
  envelope(`<GetCapabilities xmlns="${DEVICE_NS}"><Category>Media</Category></GetCapabilities>`, auth);
export const getProfiles = (auth?: WsCredentials): string => envelope(`<GetProfiles xmlns="${MEDIA_NS}"/>`, auth);
export const getSnapshotUri = (profileToken: string, auth?: WsCredentials): string =>
  envelope(`<GetSnapshotUri xmlns="${MEDIA_NS}"><ProfileToken>${escapeXml(profileToken)}</ProfileToken></GetSnapshotUri>`, auth);

export type SoapAnswer<T> = { ok: true; value: T } | { ok: false; reason: string; notAuthorized: boolean };

/** The Body of an answer, or why there is none (not XML, a SOAP fault). */
function bodyOf(
  answer: Uint8Array | string,
  arrayTags: readonly string[] = [],
): { ok: true; body: XmlValue } | { ok: false; reason: string; notAuthorized: boolean } {
  const parsed = parseXmlSafely(answer, { maxBytes: MAX_SOAP_ANSWER_BYTES, maxElements: 5_000, arrayTags, keepAttributes: true });
  if (!parsed.ok) return { ok: false, reason: `not a SOAP answer (${parsed.reason})`, notAuthorized: false };
  if (parsed.rootName !== 'Envelope') return { ok: false, reason: `not a SOAP answer (root ${parsed.rootName.slice(0, 40)})`, notAuthorized: false };
  const body = childElement(parsed.root, 'Body');
  if (!body) return { ok: false, reason: 'SOAP answer without a Body', notAuthorized: false };
  const fault = childElement(body, 'Fault');
  if (fault) {
    const code = faultCodes(fault);
    const text = (textAt(fault, 'Reason', 'Text') ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '').slice(0, 200);
    return {
      ok: false,
      reason: `SOAP fault ${code.join('/') || 'without a code'}${text ? `: ${text}` : ''}`,
      notAuthorized: code.some((c) => /NotAuthorized|FailedAuthentication/i.test(c)),
    };
  }
  return { ok: true, body };
}

/** `env:Sender` / `ter:NotAuthorized`: the fault's code and subcodes, prefixes dropped. */
function faultCodes(fault: XmlValue): string[] {
  const out: string[] = [];
  let node: XmlValue | undefined = childElement(fault, 'Code');
  for (let depth = 0; node !== undefined && depth < 5; depth += 1) {
    const value = childText(node, 'Value');
    if (value) out.push(value.slice(value.indexOf(':') + 1).slice(0, 60));
    node = childElement(node, 'Subcode');
  }
  return out;
}

/** The camera's UTC clock from GetSystemDateAndTimeResponse, or undefined when it does not say. */
export function parseSystemTime(answer: Uint8Array | string): SoapAnswer<Date | undefined> {
  const body = bodyOf(answer);
  if (!body.ok) return body;
  const utc = childElement(childElement(childElement(body.body, 'GetSystemDateAndTimeResponse'), 'SystemDateAndTime'), 'UTCDateTime');
  const n = (path: [string, string]): number => Number(textAt(utc, ...path));
  const parts = [n(['Date', 'Year']), n(['Date', 'Month']), n(['Date', 'Day']), n(['Time', 'Hour']), n(['Time', 'Minute']), n(['Time', 'Second'])];
  if (!utc || parts.some((p) => !Number.isInteger(p))) return { ok: true, value: undefined };
  const [year, month, day, hour, minute, second] = parts as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return { ok: true, value: Number.isNaN(at.getTime()) || year < 2000 || year > 2200 ? undefined : at };
}

/** The media service's address from GetCapabilitiesResponse. */
export function parseMediaAddress(answer: Uint8Array | string): SoapAnswer<string> {
  const body = bodyOf(answer);
  if (!body.ok) return body;
  const xaddr = textAt(body.body, 'GetCapabilitiesResponse', 'Capabilities', 'Media', 'XAddr')?.trim();
  if (!xaddr) return { ok: false, reason: 'the camera names no media service (GetCapabilities has no Media XAddr)', notAuthorized: false };
  return { ok: true, value: xaddr.slice(0, 2000) };
}

/** The first media profile's token: the camera's main stream on every camera we know. */
export function parseFirstProfileToken(answer: Uint8Array | string): SoapAnswer<string> {
  const body = bodyOf(answer, ['Profiles']);
  if (!body.ok) return body;
  const token = attributeOf(childrenNamed(childElement(body.body, 'GetProfilesResponse'), 'Profiles')[0], 'token');
  if (!token) return { ok: false, reason: 'the camera lists no media profile', notAuthorized: false };
  return { ok: true, value: token.slice(0, 64) };
}

/** `MediaUri/Uri` from GetSnapshotUriResponse. */
export function parseSnapshotUri(answer: Uint8Array | string): SoapAnswer<string> {
  const body = bodyOf(answer);
  if (!body.ok) return body;
  const uri = textAt(body.body, 'GetSnapshotUriResponse', 'MediaUri', 'Uri')?.trim();
  if (!uri) return { ok: false, reason: 'the camera gives no snapshot URI for its first profile', notAuthorized: false };
  return { ok: true, value: uri.slice(0, 2000) };
}

/**
 * A URL the camera gave, as this device reaches it. Cameras behind NAT or port forwarding name
 * their own inside address (`http://192.168.1.64/onvif/media`), which this device may not reach:
 * a host other than the one we asked is replaced by it (host and port); the path is kept. Only
 * http(s) is accepted, so an answer cannot point the appliance at another scheme or host.
 */
export function asReached(given: string, asked: string): string | undefined {
  let url: URL;
  let base: URL;
  try {
    url = new URL(given, asked);
    base = new URL(asked);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname.toLowerCase() !== base.hostname.toLowerCase()) {
    url.hostname = base.hostname;
    url.port = base.port;
  }
  url.username = '';
  url.password = '';
  return url.toString();
}
