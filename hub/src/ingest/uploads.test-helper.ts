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
import { serve } from '@hono/node-server';
import type { BatchDetection } from '@alpr/shared/protocol/batch';
import { plateCropJpeg, sceneJpeg, tinyPlateJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { padJpeg, withComment } from '../../../scripts/simulators/jpeg.ts';
import { createHubApp } from '../app.ts';
import { systemClock, type Clock } from '../clock.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../collectors/context.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { loadHubConfig, type HubConfig } from '../config.ts';
import type { DbSession } from '../db/session.ts';
import type { HubDeps } from '../deps.ts';
import { createLog, type Log } from '../log.ts';
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
      await deps.images.close();
      await rm(imageDir, { recursive: true, force: true });
    },
  };
}
