import { ApplianceError } from '../errors.ts';
import { baseUrlOf, verifiesTls } from './config.ts';
import type { CameraConfig } from './config.ts';
import { looksLikeJpeg } from './frame-pixels.ts';
import { createDigestClient } from './http/digest.ts';
import { createCameraAgent, sendOnce } from './http/transport.ts';
import type { CameraResponse } from './http/transport.ts';
import { askSnapshotUri, ONVIF_DEVICE_PATH } from './onvif/snapshot-uri.ts';
import { snapshotCandidates } from './snapshot-urls.ts';

/**
 * One JPEG from an ordinary camera's snapshot URL. With a username the Digest client answers
 * whatever the camera asks for, Digest (RFC 7616, MD5 or SHA-256, qop=auth) or Basic, and keeps
 * the nonce between frames so a 4 fps poll costs one round trip a frame (http/digest.ts).
 * Errors say what the installer should fix: the login, the URL, or a camera that answers
 * something that is not a picture.
 */

/** A 4K JPEG is 1-3 MB; 8 MiB bounds a broken camera. */
const MAX_FRAME_BYTES = 8 * 1024 * 1024;

export interface SnapshotSource {
  /** The URL in use, once one answered with a JPEG. */
  url(): string | undefined;
  frame(): Promise<Uint8Array>;
  close(): Promise<void>;
}

const unreachable = (message: string): ApplianceError => new ApplianceError('camera_unreachable', message);

export function openSnapshotSource(config: CameraConfig, now: () => number = Date.now): SnapshotSource {
  const http = {
    rejectUnauthorized: verifiesTls(config),
    headersTimeoutMs: config.requestTimeoutMs,
    bodyTimeoutMs: config.requestTimeoutMs,
    maxBodyBytes: MAX_FRAME_BYTES,
  };
  const client =
    config.username !== undefined
      ? createDigestClient({ ...http, username: config.username, password: config.password ?? '' })
      : (() => {
          const agent = createCameraAgent(http);
          return { request: (req: { url: string }) => sendOnce(agent, req, MAX_FRAME_BYTES), close: () => agent.close() };
        })();
  const candidates = snapshotCandidates(config.snapshotUrl, baseUrlOf(config));
  let chosen: string | undefined = candidates.length === 1 ? candidates[0] : undefined;

  const get = async (url: string): Promise<CameraResponse> => client.request({ url, headers: { accept: 'image/jpeg' } });

  function check(url: string, res: CameraResponse): Uint8Array {
    if (res.status === 401 || res.status === 403) {
      const asked = String(res.headers['www-authenticate'] ?? '').split(' ')[0] || 'no scheme';
      throw unreachable(`${url}: HTTP ${res.status}, login refused (camera asks for ${asked}); check username and password`);
    }
    if (res.status !== 200) throw unreachable(`${url}: HTTP ${res.status}`);
    const bytes = new Uint8Array(res.body);
    if (!looksLikeJpeg(bytes)) {
      const type = String(res.headers['content-type'] ?? 'no content type');
      throw unreachable(`${url}: answered ${bytes.length} bytes of ${type}, not a JPEG; check the snapshot URL`);
    }
    return bytes;
  }

  /**
   * No URL given: the camera's own answer first (ONVIF GetSnapshotUri), else undefined with the
   * reason kept for the error. An ONVIF login refused does not stop the search: many cameras
   * keep ONVIF users apart from their web users (Hikvision does), and the vendor paths below
   * use the web login.
   */
  async function onvifCandidate(tried: string[]): Promise<string | undefined> {
    if (config.snapshotUrl !== undefined) return undefined;
    try {
      const asked = await askSnapshotUri(`${baseUrlOf(config)}${ONVIF_DEVICE_PATH}`, {
        request: (req) => client.request(req),
        username: config.username,
        password: config.password,
        now,
      });
      if (asked.ok) return asked.url;
      tried.push(asked.reason);
    } catch (error) {
      tried.push(`ONVIF: ${error instanceof Error ? error.message : String(error)}`);
    }
    return undefined;
  }

  return {
    url: () => chosen,
    async frame() {
      if (chosen !== undefined) return check(chosen, await get(chosen));
      // No URL yet: the camera's ONVIF snapshot URI, then the first vendor path that gives a
      // JPEG. A refused login on a vendor path stops the search (every path would say the
      // same, and each try counts against the camera's lockout).
      const tried: string[] = [];
      const fromOnvif = await onvifCandidate(tried);
      for (const url of fromOnvif !== undefined ? [fromOnvif, ...candidates.filter((c) => c !== fromOnvif)] : candidates) {
        const res = await get(url);
        if (res.status === 401 || res.status === 403) return check(url, res);
        try {
          const bytes = check(url, res);
          chosen = url;
          return bytes;
        } catch (error) {
          tried.push(error instanceof Error ? error.message : String(error));
        }
      }
      throw unreachable(`no snapshot URL answered with a JPEG; set snapshotUrl (tried: ${tried.join('; ')})`);
    },
    close: () => client.close(),
  };
}
