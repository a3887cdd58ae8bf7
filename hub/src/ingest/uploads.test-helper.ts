/**
 * Test and benchmark support for ingest: batch bodies encoded the way docs/protocol.md
 * says, real JPEG images of a chosen size, and a real hub (database, image store, HTTP server on
 * 127.0.0.1) with a claimed collector.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { batchResponseSchema, type BatchDetection, type BatchResponse } from '@alpr/shared/protocol/batch';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';
import { plateCropJpeg, sceneJpeg, tinyPlateJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { padJpeg, withComment } from '../../../scripts/simulators/jpeg.ts';
import { createHubApp } from '../app.ts';
import { systemClock, type Clock } from '../platform/clock.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { loadHubConfig, type HubConfig } from '../platform/config/hub-config.ts';
import type { DbSession } from '../db/session.ts';
import type { HubDeps } from '../hub-deps.ts';
import { createLog, type Log } from '../platform/log.ts';
import { openImageStore, sha256Hex, type ImageStore } from '../images/image-store.ts';
import { createLoadMonitor } from './load-monitor.ts';

// Real pictures of sampleDetection's plate, drawn once (a scene takes about 35 ms).
let pictures: Buffer[] | undefined;
const drawnPictures = (): Buffer[] =>
  (pictures ??= [sceneJpeg('AB12CDE', { seed: 1 }), plateCropJpeg('AB12CDE', { seed: 1 }), tinyPlateJpeg()].sort((a, b) => b.length - a.length));

/** 16 random bytes in a COM segment make every call a new file; 4 more for the segment's marker and length. */
const UNIQUE = 16;

/**
 * A real JPEG of exactly `size` bytes, unique per call (so every image is new): the largest
 * drawn picture that fits (a 640x360 scene, a 240x80 crop, or a 24x8 blank plate), a COM
 * segment of random bytes, then padding (padJpeg in scripts/simulators/jpeg.ts). Sizes
 * under the smallest picture (about 670 bytes, jpeg-js's tables alone take 600) cannot be
 * a real JPEG: those stay random bytes framed as one (SOI ... EOI), for the tests of byte
 * handling that need a few hundred bytes.
 */
export function jpegLike(size: number): Buffer {
  const picture = drawnPictures().find((p) => p.length + UNIQUE + 4 <= size);
  if (picture) return padJpeg(withComment(picture, randomBytes(UNIQUE)), size, randomBytes(4).readUInt32BE(0));
  const bytes = randomBytes(size);
  bytes[0] = 0xff;
  bytes[1] = 0xd8;
  bytes[size - 2] = 0xff;
  bytes[size - 1] = 0xd9;
  return bytes;
}

export function sampleDetection(overrides: Partial<BatchDetection> = {}): BatchDetection {
  return {
    detection_id: randomUUID(),
    timestamp: new Date(Date.now() - 60_000).toISOString(),
    camera: { id: 'gate-1', mac: '7cd8b328641b' },
    plate: { text: 'AB12CDE', confidence: 0.93, region: 'GB' },
    vehicle: { direction: 'entering', vehicle_type: 'car', color: 'blue', brand: 'Volvo', model: 'V70' },
    ...overrides,
  };
}

export interface Part {
  name: string;
  contentType: string;
  body: Uint8Array;
  filename?: string;
}

export function encodeMultipart(parts: readonly Part[], boundary = `----alpr${randomBytes(8).toString('hex')}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename ? `; filename="${part.filename}"` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\nContent-Type: ${part.contentType}\r\n\r\n`));
    chunks.push(Buffer.from(part.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface BatchEntry {
  detection: BatchDetection | Record<string, unknown>;
  fullScene?: Uint8Array;
  plateCrop?: Uint8Array;
}

/** A batch upload body: `metadata` JSON + one part per image, named `img-<i>-<kind>`. */
export function encodeBatch(entries: readonly BatchEntry[]): { body: Buffer; contentType: string } {
  const parts: Part[] = [];
  const detections = entries.map((entry, i) => {
    const images: Record<string, { part: string; sha256: string; size: number }> = {};
    for (const [kind, bytes] of [
      ['full_scene', entry.fullScene],
      ['plate_crop', entry.plateCrop],
    ] as const) {
      if (!bytes) continue;
      const part = `img-${i}-${kind}`;
      images[kind] = { part, sha256: sha256Hex(bytes), size: bytes.byteLength };
      parts.push({ name: part, contentType: 'image/jpeg', body: bytes, filename: `${part}.jpg` });
    }
    return Object.keys(images).length > 0 ? { ...entry.detection, images } : entry.detection;
  });
  const metadata = Buffer.from(JSON.stringify({ detections }));
  return encodeMultipart([{ name: 'metadata', contentType: 'application/json', body: metadata }, ...parts]);
}

/** Where a test sends a batch: a hub on loopback (`url`, e.g. a TestHub), or the app in this process (`ctx.app`). */
export type BatchTarget = { url: string } | { request(path: string, init: RequestInit): Response | Promise<Response> };

/** The hub's answer to a batch that went in: 201, or 202 with `backpressure`. */
export interface UploadedBatch extends BatchResponse {
  status: number;
}

/** Attempts in all for a 429 or 503, and the longest wait between two: at most about 20 s per batch. */
export const UPLOAD_ATTEMPTS = 5;
const MAX_RETRY_WAIT_MS = 5_000;
/** The wait when a 429 or 503 names no usable Retry-After. */
const DEFAULT_RETRY_WAIT_MS = 1_000;

/** Retry-After as delta seconds or an HTTP date, bounded for a test (appliance/src/uplink/classify-response.ts reads it the same way). */
function retryWaitMs(value: string | null): number {
  const raw = value?.trim() ?? '';
  const ms = /^\d+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw) - Date.now();
  return Number.isFinite(ms) ? Math.min(MAX_RETRY_WAIT_MS, Math.max(0, ms)) : DEFAULT_RETRY_WAIT_MS;
}

/**
 * Uploads one batch the way a collector does (POST BATCH_PATH, `X-API-Key`, the multipart
 * body of encodeBatch) and accepts what a collector accepts (appliance/src/uplink/
 * classify-response.ts): a 2xx with a valid `{accepted, results}` body. A 202 with
 * `backpressure` is success: the batch is stored, the hub only asks the collector to wait
 * before its NEXT upload (docs/ingest.md "Routes and status codes"); a test is not a
 * collector under sustained load, so it does not wait. A loaded test machine (load 8 on 2
 * cores) passes the 500 ms write-latency and 80 % CPU triggers often, so a helper that wanted
 * 201 failed there. 429 and 503 are tried again after their Retry-After, as the uplink does,
 * at most UPLOAD_ATTEMPTS times with each wait capped at 5 s. So is a connection cut before
 * any answer (`fetch failed`): the hub may answer early (a 429 before a big body is read) and
 * close, and the uplink, like any collector, tries again; the hub's idempotency by detection
 * id makes the second try safe. Anything else throws with the
 * status and body: for a test's setup it means the reads never went in. Per-item results are
 * the caller's to check (a rejected item is still a 201).
 *
 * For setup only: a test whose subject is the batch route's status keeps its own request.
 */
export async function uploadBatch(target: BatchTarget, apiKey: string, entries: readonly BatchEntry[]): Promise<UploadedBatch> {
  const { body, contentType } = encodeBatch(entries);
  for (let attempt = 1; ; attempt++) {
    const init: RequestInit = { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': contentType }, body: new Uint8Array(body) };
    let res: Response;
    let text: string;
    try {
      res = 'url' in target ? await fetch(`${target.url}${BATCH_PATH}`, init) : await target.request(BATCH_PATH, init);
      text = await res.text();
    } catch (err) {
      if (attempt >= UPLOAD_ATTEMPTS) throw err;
      await sleep(DEFAULT_RETRY_WAIT_MS);
      continue;
    }
    if (res.status === 200 || res.status === 201 || res.status === 202) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new Error(`batch ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
      const parsed = batchResponseSchema.safeParse(json);
      if (!parsed.success) throw new Error(`batch ${res.status} with a malformed answer: ${text.slice(0, 200)}`);
      return { status: res.status, ...parsed.data };
    }
    if ((res.status === 429 || res.status === 503) && attempt < UPLOAD_ATTEMPTS) {
      await sleep(retryWaitMs(res.headers.get('retry-after')));
      continue;
    }
    throw new Error(`batch ${res.status} (attempt ${attempt} of ${UPLOAD_ATTEMPTS}): ${text.slice(0, 500)}`);
  }
}

export interface TestHub {
  url: string;
  deps: HubDeps;
  collectorId: string;
  apiKey: string;
  imageDir: string;
  close(): Promise<void>;
}

export interface TestHubOptions {
  db: DbSession;
  config?: Partial<HubConfig>;
  /** Default: a store in a fresh temp folder. */
  images?: ImageStore;
  /** Default: a silent logger. */
  log?: Log;
  /** Default: the system clock. */
  clock?: Clock;
  /** Site position copied onto detections. */
  latitude?: number;
  longitude?: number;
}

/**
 * A hub on 127.0.0.1 (ephemeral port) over `db`, with an image store in a temp folder and
 * an active collector claimed through the real claim verb. CPU is pinned at 0 % so a busy
 * test machine cannot trigger backpressure by accident; tests inject load with override().
 */
export async function startTestHub(options: TestHubOptions): Promise<TestHub> {
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-images-'));
  const config: HubConfig = { ...loadHubConfig({ HUB_LOG_LEVEL: 'silent' }), imageDir, ...options.config };
  const deps: HubDeps = {
    db: options.db,
    images: options.images ?? openImageStore(imageDir, { db: options.db }),
    load: createLoadMonitor(() => 0),
    clock: options.clock ?? systemClock,
    log: options.log ?? createLog('silent'),
    config,
  };
  const created = await createCollector(deps, SYSTEM_ACTOR, {
    siteName: 'Ingest test site',
    ...(options.latitude !== undefined ? { latitude: options.latitude } : {}),
    ...(options.longitude !== undefined ? { longitude: options.longitude } : {}),
  });
  const enrolled = await claim(deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  const app = createHubApp(deps);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    collectorId: enrolled.collector_id,
    apiKey: enrolled.api_key,
    imageDir,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The upload counts held for a second go to the table while it is still open.
      await deps.uploadLoad?.stop();
      await deps.images.close();
      await rm(imageDir, { recursive: true, force: true });
    },
  };
}
