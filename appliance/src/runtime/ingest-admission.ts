import { createHash, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { CameraConfig } from '../cameras/config.ts';
import { ApplianceError } from '../errors.ts';
import type { AddressOf } from '../http/request-guards.ts';

/**
 * Who may write evidence through the push endpoints (docs/setup-page.md "Camera pushes").
 * Before this runs, the LAN guard has refused every non-LAN peer. Then, for the camera the
 * payload names (by MAC):
 * - pinning: the TCP peer must be the camera's `pushSource`, default its configured `host`
 *   (an IP literal, or a name resolved per push); `pushSource = "any"` or no host: no pin;
 * - shared secret: when `pushSecret` is set, the camera must present it as the password of
 *   HTTP Basic auth (what vendor_a's HTTP host notification sends), an `X-Alpr-Push-Secret`
 *   header, or `?secret=` in the URL; compared in constant time;
 * - a payload naming no configured camera passes only while `ingest.accept_unknown_cameras`.
 */
/** The refusals: codes of the appliance's closed set (errors.ts gives each its status). */
export type PushRefusalCode = 'wrong_source' | 'bad_push_secret' | 'unknown_camera';
export type Admission = { ok: true } | { ok: false; code: PushRefusalCode; message: string };

export interface AdmissionInput {
  camera: CameraConfig | undefined;
  peer: string | undefined;
  presentedSecret: string | undefined;
  acceptUnknown: boolean;
  /** Addresses of a host name (default: DNS). */
  resolve?: (host: string) => Promise<string[]>;
}

const dnsResolve = async (host: string): Promise<string[]> => (await lookup(host, { all: true })).map((a) => a.address);

/** `::ffff:192.168.1.9` -> `192.168.1.9`; zone ids dropped; lower case. */
export function normalizeAddress(address: string): string {
  const bare = address
    .trim()
    .replace(/%[0-9A-Za-z_.-]+$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  return mapped?.[1] ?? bare;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
export const secretsMatch = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected));

export async function admitPush(input: AdmissionInput): Promise<Admission> {
  const { camera } = input;
  if (!camera) {
    return input.acceptUnknown ? { ok: true } : { ok: false, code: 'unknown_camera', message: 'this push names no configured camera' };
  }
  const pin = camera.pushSource ?? camera.host;
  if (pin !== undefined && pin !== 'any') {
    const peer = input.peer === undefined ? undefined : normalizeAddress(input.peer);
    const pinned =
      isIP(normalizeAddress(pin)) !== 0
        ? [normalizeAddress(pin)]
        : await (input.resolve ?? dnsResolve)(pin).then(
            (all) => all.map(normalizeAddress),
            () => [],
          );
    if (peer === undefined || !pinned.includes(peer)) {
      return { ok: false, code: 'wrong_source', message: `camera ${camera.id} pushes only from its own address` };
    }
  }
  if (camera.pushSecret !== undefined) {
    if (input.presentedSecret === undefined || !secretsMatch(input.presentedSecret, camera.pushSecret)) {
      return { ok: false, code: 'bad_push_secret', message: `camera ${camera.id}: missing or wrong push secret` };
    }
  }
  return { ok: true };
}

/** The secret a camera presents: Basic auth password, `X-Alpr-Push-Secret`, or `?secret=`. */
export function presentedSecret(c: Context): string | undefined {
  const header = c.req.header('x-alpr-push-secret');
  if (header) return header;
  const auth = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(c.req.header('authorization') ?? '');
  if (auth?.[1]) {
    const decoded = Buffer.from(auth[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) return decoded.slice(colon + 1);
  }
  return c.req.query('secret') || undefined;
}

/** The ingest app's `admit` hook: a refusal is thrown as an ApplianceError, which the edge renders. */
export function pushAdmission(options: { addressOf: AddressOf; acceptUnknown: () => boolean; log: { warn(obj: Record<string, unknown>, msg: string): void } }) {
  return async (camera: CameraConfig | undefined, c: Context): Promise<void> => {
    const peer = options.addressOf(c);
    const verdict = await admitPush({ camera, peer, presentedSecret: presentedSecret(c), acceptUnknown: options.acceptUnknown() });
    if (verdict.ok) return;
    options.log.warn({ camera: camera?.id ?? null, peer: peer ?? null, code: verdict.code }, 'camera push refused');
    const headers: Record<string, string> = verdict.code === 'bad_push_secret' ? { 'www-authenticate': 'Basic realm="alpr-push"' } : {};
    throw new ApplianceError(verdict.code, verdict.message, { headers });
  };
}
