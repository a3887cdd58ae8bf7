import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { childElement, childText, parseXmlSafely, textAt } from '../../shared/src/adapters/xml.ts';
import type { XmlValue } from '../../shared/src/adapters/xml.ts';
import { send } from './server.ts';

/**
 * The ONVIF side of a simulated ordinary camera (scripts/simulators/snapshot-camera.ts): the
 * device service's GetSystemDateAndTime and GetCapabilities, and the media service's
 * GetProfiles and GetSnapshotUri (ver10), as SOAP 1.2. Every call but the clock needs a
 * WS-Security UsernameToken whose digest matches and whose `Created` is within five minutes of
 * the camera's clock, as real cameras check it. Field faults on request: a clock that is wrong
 * (so a client must use the camera's time in its token), and addresses that name the camera's
 * inside address instead of the one the client reached (a camera behind NAT).
 */

export const ONVIF_DEVICE_SERVICE = '/onvif/device_service';
export const ONVIF_MEDIA_SERVICE = '/onvif/media_service';

export interface OnvifDeviceOptions {
  username: string;
  password: string;
  /** Path of the JPEG snapshot that GetSnapshotUri names. */
  snapshotPath: string;
  /** The camera's clock minus the true time (ms); default 0. */
  clockOffsetMs?: number;
  /** Host the camera names in its URLs (its inside address); default the host it was reached at. */
  reportedHost?: string;
  now?: () => number;
}

export interface OnvifCounts {
  calls: Record<string, number>;
  refused: number;
}

const ALLOWED_SKEW_MS = 5 * 60_000;
const PROFILES = ['Profile_1', 'Profile_2'];

const soap = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:tds="http://www.onvif.org/ver10/device/wsdl" xmlns:trt="http://www.onvif.org/ver10/media/wsdl" xmlns:tt="http://www.onvif.org/ver10/schema" xmlns:ter="http://www.onvif.org/ver10/error"><env:Body>${body}</env:Body></env:Envelope>`;

const fault = (code: string, subcode: string, text: string): string =>
  soap(
    `<env:Fault><env:Code><env:Value>env:${code}</env:Value><env:Subcode><env:Value>ter:${subcode}</env:Value></env:Subcode></env:Code><env:Reason><env:Text xml:lang="en">${text}</env:Text></env:Reason></env:Fault>`,
  );

export function createOnvifDevice(options: OnvifDeviceOptions): {
  handle(path: string, host: string, body: Buffer, res: ServerResponse): void;
  counts(): OnvifCounts;
} {
  const now = options.now ?? Date.now;
  const cameraTime = (): Date => new Date(now() + (options.clockOffsetMs ?? 0));
  const counts: OnvifCounts = { calls: {}, refused: 0 };

  function authorized(header: XmlValue | undefined): boolean {
    const token = childElement(childElement(header, 'Security'), 'UsernameToken');
    const username = childText(token, 'Username');
    const digest = childText(token, 'Password');
    const nonce = childText(token, 'Nonce');
    const created = childText(token, 'Created');
    if (username !== options.username || !digest || !nonce || !created) return false;
    const createdAt = Date.parse(created);
    if (!Number.isFinite(createdAt) || Math.abs(createdAt - cameraTime().getTime()) > ALLOWED_SKEW_MS) return false;
    const expected = createHash('sha1').update(Buffer.from(nonce, 'base64')).update(created, 'utf8').update(options.password, 'utf8').digest();
    const given = Buffer.from(digest, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function answer(call: string, body: XmlValue | undefined, base: string): { status: number; xml: string } {
    const reported = options.reportedHost !== undefined ? `http://${options.reportedHost}` : base;
    switch (call) {
      case 'GetCapabilities':
        return {
          status: 200,
          xml: soap(
            `<tds:GetCapabilitiesResponse><tds:Capabilities><tt:Media><tt:XAddr>${reported}${ONVIF_MEDIA_SERVICE}</tt:XAddr></tt:Media></tds:Capabilities></tds:GetCapabilitiesResponse>`,
          ),
        };
      case 'GetProfiles':
        return {
          status: 200,
          xml: soap(
            `<trt:GetProfilesResponse>${PROFILES.map((token) => `<trt:Profiles token="${token}" fixed="true"><tt:Name>${token}</tt:Name></trt:Profiles>`).join('')}</trt:GetProfilesResponse>`,
          ),
        };
      case 'GetSnapshotUri': {
        const token = textAt(body, 'GetSnapshotUri', 'ProfileToken');
        if (!token || !PROFILES.includes(token)) return { status: 400, xml: fault('Sender', 'NoProfile', 'The requested profile token does not exist') };
        return {
          status: 200,
          xml: soap(
            `<trt:GetSnapshotUriResponse><trt:MediaUri><tt:Uri>${reported}${options.snapshotPath}</tt:Uri><tt:InvalidAfterConnect>false</tt:InvalidAfterConnect><tt:InvalidAfterReboot>false</tt:InvalidAfterReboot><tt:Timeout>PT0S</tt:Timeout></trt:MediaUri></trt:GetSnapshotUriResponse>`,
          ),
        };
      }
      default:
        return { status: 400, xml: fault('Sender', 'ActionNotSupported', 'Optional action not implemented') };
    }
  }

  return {
    counts: () => ({ calls: { ...counts.calls }, refused: counts.refused }),
    handle(path, host, raw, res) {
      const parsed = parseXmlSafely(raw, { maxBytes: 64 * 1024 });
      const envelope = parsed.ok && parsed.rootName === 'Envelope' ? parsed.root : undefined;
      const body = childElement(envelope, 'Body');
      const call = Object.keys(body ?? {})[0]?.replace(/^.*:/, '') ?? '';
      if (!envelope || !body || call === '') return send(res, 400, 'application/soap+xml', fault('Sender', 'WellFormed', 'not a SOAP envelope'));
      counts.calls[call] = (counts.calls[call] ?? 0) + 1;
      const service = path === ONVIF_DEVICE_SERVICE ? 'device' : 'media';
      if (call === 'GetSystemDateAndTime' && service === 'device') {
        const t = cameraTime();
        return send(
          res,
          200,
          'application/soap+xml',
          soap(
            `<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:DateTimeType>Manual</tt:DateTimeType><tt:DaylightSavings>false</tt:DaylightSavings><tt:UTCDateTime><tt:Time><tt:Hour>${t.getUTCHours()}</tt:Hour><tt:Minute>${t.getUTCMinutes()}</tt:Minute><tt:Second>${t.getUTCSeconds()}</tt:Second></tt:Time><tt:Date><tt:Year>${t.getUTCFullYear()}</tt:Year><tt:Month>${t.getUTCMonth() + 1}</tt:Month><tt:Day>${t.getUTCDate()}</tt:Day></tt:Date></tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>`,
          ),
        );
      }
      if (!authorized(childElement(envelope, 'Header'))) {
        counts.refused += 1;
        return send(res, 400, 'application/soap+xml', fault('Sender', 'NotAuthorized', 'Sender not Authorized'));
      }
      const wrongService = (service === 'device') !== (call === 'GetCapabilities');
      const { status, xml } = wrongService
        ? { status: 400, xml: fault('Sender', 'ActionNotSupported', `${call} is not on this service`) }
        : answer(call, body, `http://${host}`);
      send(res, status, 'application/soap+xml', xml);
    },
  };
}
