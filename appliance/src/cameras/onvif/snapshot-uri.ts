/**
 * Asks an ONVIF camera where it serves one JPEG (docs/ordinary-cameras.md "Snapshot URL"):
 * GetSystemDateAndTime (no login, so the login token can carry the camera's own time: a camera
 * whose clock is wrong refuses a token "created" outside its window), GetCapabilities for the
 * media service, GetProfiles, GetSnapshotUri of the first profile. The login goes both ways
 * cameras check it: a WS-Security UsernameToken in the message, and HTTP Digest or Basic when
 * the camera answers 401 (the camera client's job, http/digest.ts).
 */
import { randomBytes } from 'node:crypto';
import type { CameraRequest, CameraResponse } from '../http/transport.ts';
import {
  asReached,
  getCapabilities,
  getProfiles,
  getSnapshotUri,
  getSystemDateAndTime,
  parseFirstProfileToken,
  parseMediaAddress,
  parseSnapshotUri,
  parseSystemTime,
} from './soap.ts';
import type { SoapAnswer, WsCredentials } from './soap.ts';

/** Where ONVIF cameras answer the device service (ONVIF Core: the fixed entry point). */
export const ONVIF_DEVICE_PATH = '/onvif/device_service';

export interface OnvifAskDeps {
  request(req: CameraRequest): Promise<CameraResponse>;
  username?: string | undefined;
  password?: string | undefined;
  now(): number;
  /** Injected for tests; default 16 random bytes per message. */
  nonce?: () => Uint8Array;
}

export type SnapshotUriOutcome = { ok: true; url: string; cameraClockOffsetMs: number } | { ok: false; reason: string; loginRefused: boolean };

const CONTENT_TYPE = 'application/soap+xml; charset=utf-8';

export async function askSnapshotUri(deviceUrl: string, deps: OnvifAskDeps): Promise<SnapshotUriOutcome> {
  const post = async (url: string, body: string): Promise<CameraResponse> =>
    deps.request({ method: 'POST', url, headers: { 'content-type': CONTENT_TYPE, accept: 'application/soap+xml, text/xml' }, body });
  const fail = (reason: string, loginRefused = false): SnapshotUriOutcome => ({ ok: false, reason: `ONVIF at ${deviceUrl}: ${reason}`, loginRefused });

  /** One call: HTTP status first (a 404 is "no ONVIF here"), then the SOAP answer, fault or value. */
  async function call<T>(
    url: string,
    body: string,
    parse: (answer: Buffer) => SoapAnswer<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; outcome: SnapshotUriOutcome }> {
    const res = await post(url, body);
    if (res.status === 401 || res.status === 403) return { ok: false, outcome: fail(`HTTP ${res.status}, login refused`, true) };
    if (res.status === 404 || res.status === 405) return { ok: false, outcome: fail(`HTTP ${res.status}, no ONVIF service there`) };
    const answer = parse(res.body);
    if (!answer.ok) return { ok: false, outcome: fail(res.status === 200 ? answer.reason : `HTTP ${res.status}, ${answer.reason}`, answer.notAuthorized) };
    if (res.status !== 200) return { ok: false, outcome: fail(`HTTP ${res.status}`) };
    return answer;
  }

  const clock = await call(deviceUrl, getSystemDateAndTime(), parseSystemTime);
  if (!clock.ok) return clock.outcome;
  const offset = clock.value === undefined ? 0 : clock.value.getTime() - deps.now();
  const auth = (): WsCredentials | undefined =>
    deps.username === undefined
      ? undefined
      : { username: deps.username, password: deps.password ?? '', nonce: deps.nonce?.() ?? randomBytes(16), created: new Date(deps.now() + offset) };

  const media = await call(deviceUrl, getCapabilities(auth()), parseMediaAddress);
  if (!media.ok) return media.outcome;
  const mediaUrl = asReached(media.value, deviceUrl);
  if (mediaUrl === undefined) return fail('the media service address is not an http(s) URL');
  const profile = await call(mediaUrl, getProfiles(auth()), parseFirstProfileToken);
  if (!profile.ok) return profile.outcome;
  const snapshot = await call(mediaUrl, getSnapshotUri(profile.value, auth()), parseSnapshotUri);
  if (!snapshot.ok) return snapshot.outcome;
  const url = asReached(snapshot.value, deviceUrl);
  if (url === undefined) return fail('the snapshot URI is not an http(s) URL');
  return { ok: true, url, cameraClockOffsetMs: offset };
}
