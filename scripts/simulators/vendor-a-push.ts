import { setTimeout as sleep } from 'node:timers/promises';
import { chance, pick, sha256 } from './plates.ts';
import type { PlateRead, Rng } from './plates.ts';
import { alertXml, multipartBody, MULTIPART_BOUNDARY, NAMESPACES } from './vendor-a-xml.ts';
import type { MultipartPart } from './vendor-a-xml.ts';

/**
 * The camera's alarm-server client (docs/camera-formats.md "vendor_a transport and auth", "vendor_a
 * push transport"): POSTs each ANPR event to the configured URL, as plain XML or multipart with the
 * pictures. A failed post is retried a few times with `activePostCount` raised, as the camera
 * re-uploads the same alarm.
 */

export type PushFormat = 'xml' | 'multipart' | 'mixed';

export interface PushConfig {
  url: string;
  format: PushFormat;
  /** Extra attempts after the first. Default 3. */
  retries: number;
  retryDelayMs: number;
  /** Share of multipart posts where one image part is empty (Content-Length: 0), as captured. */
  emptyImageRate: number;
  /**
   * Share of multipart posts whose plate-crop part is labelled `image/jpeg` but holds 11 bytes
   * of text, as in a real capture. Default 0. The receiver should keep the read, not the image.
   */
  mislabelledImageRate?: number;
  timeoutMs: number;
  timezone: string;
  mac: string;
  channelId: number;
  /** Aborted when the simulator closes: stops in-flight posts and pending retries. */
  signal?: AbortSignal;
}

export interface PushOutcome {
  delivered: boolean;
  attempts: number;
  lastStatus?: number;
  images: { plateCrop?: string; fullScene?: string };
}

interface Body {
  contentType: string;
  bytes: (activePostCount: number) => Buffer;
  images: PushOutcome['images'];
}

/** What a real camera put in an `image/jpeg` part: text, not a picture. */
const MISLABELLED_PART = Buffer.from('Not Found\r\n', 'latin1');

function buildBody(read: PlateRead, uuid: string, config: PushConfig, rng: Rng): Body {
  const format = config.format === 'mixed' ? pick(rng, ['xml', 'multipart'] as const) : config.format;
  const namespace = pick(rng, NAMESPACES);
  const pictures = [
    { fileName: 'licensePlatePicture.jpg', type: 'licensePlatePicture' },
    { fileName: 'detectionPicture.jpg', type: 'detectionPicture' },
  ] as const;
  const xml = (activePostCount: number): string =>
    alertXml(read, { uuid, mac: config.mac, channelId: config.channelId, timezone: config.timezone, activePostCount, namespace, pictures: [...pictures] });
  if (format === 'xml') {
    // The document still names pictures it does not attach (docs/camera-formats.md "vendor_a push
    // transport"): no images arrive.
    return { contentType: 'application/xml; charset="UTF-8"', bytes: (n) => Buffer.from(xml(n), 'utf8'), images: {} };
  }
  const emptyCrop = chance(rng, config.emptyImageRate) && chance(rng, 0.5);
  const emptyScene = !emptyCrop && chance(rng, config.emptyImageRate);
  const mislabelled = !emptyCrop && chance(rng, config.mislabelledImageRate ?? 0);
  const crop = emptyCrop ? Buffer.alloc(0) : mislabelled ? MISLABELLED_PART : read.crop;
  const scene = emptyScene ? Buffer.alloc(0) : read.scene;
  const images: PushOutcome['images'] = {};
  if (crop.length > 0 && !mislabelled) images.plateCrop = sha256(crop);
  if (scene.length > 0) images.fullScene = sha256(scene);
  const bytes = (n: number): Buffer => {
    const parts: MultipartPart[] = [
      { name: 'anpr.xml', contentType: 'text/xml; charset="UTF-8"', body: Buffer.from(xml(n), 'utf8') },
      { name: 'licensePlatePicture.jpg', contentType: 'image/jpeg', body: crop, contentId: 'licensePlatePicture' },
      { name: 'detectionPicture.jpg', contentType: 'image/jpeg', body: scene, contentId: 'detectionPicture' },
    ];
    return multipartBody(parts);
  };
  return { contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`, bytes, images };
}

/** Post one read, retrying on non-2xx and network errors; resolves, never rejects. */
export async function pushRead(read: PlateRead, uuid: string, config: PushConfig, rng: Rng): Promise<PushOutcome> {
  const body = buildBody(read, uuid, config, rng);
  let lastStatus: number | undefined;
  const attempts = config.retries + 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await fetch(config.url, {
        method: 'POST',
        headers: { 'content-type': body.contentType },
        body: new Uint8Array(body.bytes(attempt)),
        signal: config.signal ? AbortSignal.any([config.signal, AbortSignal.timeout(config.timeoutMs)]) : AbortSignal.timeout(config.timeoutMs),
      });
      lastStatus = res.status;
      await res.arrayBuffer().catch(() => undefined); // drain so the socket is reused
      if (res.ok) return { delivered: true, attempts: attempt, lastStatus, images: body.images };
    } catch {
      lastStatus = undefined; // refused, reset or timed out: same as a camera, try again
    }
    if (config.signal?.aborted) return { delivered: false, attempts: attempt, images: body.images };
    if (attempt < attempts) await sleep(config.retryDelayMs, undefined, { signal: config.signal }).catch(() => undefined);
  }
  return { delivered: false, attempts, images: body.images, ...(lastStatus !== undefined ? { lastStatus } : {}) };
}
