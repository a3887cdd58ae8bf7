import { createHash } from 'node:crypto';
import type { BufferedItem } from './ports.ts';

/** Fake JPEG bytes: SOI marker, deterministic content per seed, EOI marker. */
export function fakeJpeg(seed: number, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  bytes.set([0xff, 0xd8], 0);
  bytes.set([0xff, 0xd9], size - 2);
  return bytes;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const PLATES = ['AB123CD', 'XY987ZT', 'KL555MN', 'GH246JK'];

/** A buffered detection received at `receivedAtMs`, with a crop and (every other one) a scene. */
export function makeItem(index: number, receivedAtMs: number, options: { camera?: string; plate?: string } = {}): BufferedItem {
  const crop = fakeJpeg(index * 2 + 1, 200 + (index % 7) * 13);
  const scene = index % 2 === 0 ? fakeJpeg(index * 2 + 2, 900 + (index % 5) * 31) : undefined;
  return {
    id: index,
    receivedAtMs,
    detection: {
      detection_id: `det-${String(index).padStart(4, '0')}`,
      timestamp: new Date(receivedAtMs - 500).toISOString(),
      camera: { id: options.camera ?? 'cam-1', mac: '00a1b2c3d4e5' },
      plate: { text: options.plate ?? PLATES[index % PLATES.length] ?? 'AB123CD', confidence: 0.91 },
      vehicle: { direction: 'entering' },
    },
    images: scene ? { plate_crop: crop, full_scene: scene } : { plate_crop: crop },
  };
}

/** `count` items with indexes from `firstIndex`, received `stepMs` apart. */
export const makeItems = (count: number, firstReceivedMs: number, firstIndex = 0, stepMs = 100): BufferedItem[] =>
  Array.from({ length: count }, (_, i) => makeItem(firstIndex + i, firstReceivedMs + i * stepMs));
