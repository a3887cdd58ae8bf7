import { createHash } from 'node:crypto';
import { plateCropJpeg, sceneJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { padJpeg } from '../../../scripts/simulators/jpeg.ts';
import type { BufferedItem } from './ports.ts';

// Drawn once per plate and kind: a 640x360 scene takes 100-200 ms to encode, and a test
// buffers up to 130 items.
const drawn = new Map<string, Buffer>();

/**
 * A real JPEG as a camera sends it: the simulators' drawing of `plate` (a 240x80 crop, about
 * 5.5 kB, or a 640x360 scene, about 15 kB) carrying `extra` bytes of comment segments
 * filled from `seed`, so each item's picture has its own bytes and hash yet still decodes.
 */
export function cameraJpeg(kind: 'crop' | 'scene', plate: string, seed: number, extra: number): Uint8Array {
  const key = `${kind}:${plate}`;
  let picture = drawn.get(key);
  if (!picture) {
    picture = kind === 'crop' ? plateCropJpeg(plate) : sceneJpeg(plate);
    drawn.set(key, picture);
  }
  // padJpeg writes whole segments of at least 4 bytes.
  return new Uint8Array(padJpeg(picture, picture.length + Math.max(4, extra), seed));
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const PLATES = ['AB123CD', 'XY987ZT', 'KL555MN', 'GH246JK'];

/** A buffered detection received at `receivedAtMs`, with a crop and (every other one) a scene. */
export function makeItem(index: number, receivedAtMs: number, options: { camera?: string; plate?: string } = {}): BufferedItem {
  const plate = options.plate ?? PLATES[index % PLATES.length] ?? 'AB123CD';
  const crop = cameraJpeg('crop', plate, index * 2 + 1, 200 + (index % 7) * 13);
  const scene = index % 2 === 0 ? cameraJpeg('scene', plate, index * 2 + 2, 900 + (index % 5) * 31) : undefined;
  return {
    id: index,
    receivedAtMs,
    detection: {
      detection_id: `det-${String(index).padStart(4, '0')}`,
      timestamp: new Date(receivedAtMs - 500).toISOString(),
      camera: { id: options.camera ?? 'cam-1', mac: '00a1b2c3d4e5' },
      plate: { text: plate, confidence: 0.91 },
      vehicle: { direction: 'entering' },
    },
    images: scene ? { plate_crop: crop, full_scene: scene } : { plate_crop: crop },
  };
}

/** `count` items with indexes from `firstIndex`, received `stepMs` apart. */
export const makeItems = (count: number, firstReceivedMs: number, firstIndex = 0, stepMs = 100): BufferedItem[] =>
  Array.from({ length: count }, (_, i) => makeItem(firstIndex + i, firstReceivedMs + i * stepMs));
