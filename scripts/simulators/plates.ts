import { createHash } from 'node:crypto';
import { plateCropJpeg, sceneJpeg } from './draw-plate.ts';
import { padJpeg, withComment } from './jpeg.ts';
import { createRng, type Rng } from './rng.ts';

/**
 * Seeded source of plate reads shared by both camera simulators. Everything random comes
 * from one PRNG so a seed replays the same run (plates, images, quirks).
 */

export { createRng, type Rng };

export const randomInt = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
export const chance = (rng: Rng, p: number): boolean => rng() < p;

const LETTERS = 'ABCDEFGHJKLMNPRSTVWXYZ';
const letters = (rng: Rng, n: number): string => Array.from({ length: n }, () => pick(rng, [...LETTERS])).join('');
const digits = (rng: Rng, n: number): string => Array.from({ length: n }, () => String(randomInt(rng, 0, 9))).join('');

/** Plate shapes seen on European roads, with the separators cameras keep. */
const SHAPES: ReadonlyArray<(rng: Rng) => string> = [
  (r) => `${letters(r, 2)} ${digits(r, 3)} ${letters(r, 2)}`, // AB 123 CD
  (r) => `${letters(r, 2)}-${digits(r, 5)}`, // XY-12345
  (r) => `${letters(r, 2)}${digits(r, 2)} ${letters(r, 3)}`, // AB12 CDE
  (r) => `${letters(r, 1)}-${letters(r, 2)} ${digits(r, 4)}`, // M-AB 1234
  (r) => `${letters(r, 3)}.${digits(r, 3)}`, // ABC.123
];

export const plateText = (rng: Rng): string => pick(rng, SHAPES)(rng);

/** The normalized form the hub stores (normalization rule 1 in docs/normalization.md), for test comparisons. */
export const normalizedPlate = (raw: string): string => raw.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * A real JPEG of a random plate (drawn from `rng`), padded to exactly `size` bytes when the
 * picture is smaller (see padJpeg in jpeg.ts). Benchmarks and tests pass the size a camera's
 * image has; `kind` says whether it is a plate crop (default) or a scene.
 */
export function jpegBytes(rng: Rng, size: number, kind: 'crop' | 'scene' = 'crop'): Buffer {
  const plate = plateText(rng);
  const seed = Math.floor(rng() * 2 ** 32);
  return kind === 'scene' ? sceneJpeg(plate, { seed, size }) : plateCropJpeg(plate, { seed, size });
}

/** What a camera stamps on its scene: its clock's time, to the second, as it shows it (UTC here). */
const cameraCaption = (timeMs: number): string => new Date(timeMs).toISOString().slice(0, 19).replace('T', ' ');

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export const uuidFrom = (rng: Rng): string => {
  const hex = Array.from({ length: 32 }, () => randomInt(rng, 0, 15).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
};

export const hexId = (rng: Rng, length: number): string => Array.from({ length }, () => randomInt(rng, 0, 15).toString(16)).join('');

export interface PlateRead {
  /** Sequence number in production order. */
  seq: number;
  /** Raw plate as the camera prints it, or `unknown` for a failed read. */
  plate: string;
  unknown: boolean;
  /** Set on a vendor_a style re-read: the seq of the read this one repeats within 1 s. */
  repeatOf?: number;
  /** Capture time, epoch ms. */
  timeMs: number;
  /** 0-100; 0 for unknown reads. */
  confidence: number;
  direction: 'forward' | 'reverse' | 'unknown';
  vehicleType: string;
  color: string;
  brandCode: number;
  crop: Buffer;
  scene: Buffer;
}

export interface ReadGeneratorOptions {
  seed?: number;
  /**
   * Plate crop size, default ~20 kB (±15 %). The drawn crop is 2-4 kB and is padded up to
   * this; a smaller figure gives the crop as drawn.
   */
  cropBytes?: number;
  /** Scene size, default ~65 kB (±15 %), padded the same way; the drawn scene is 10-25 kB. */
  sceneBytes?: number;
  /** Share of failed reads (`unknown`). Default 0.05. */
  unknownRate?: number;
  /** Share of reads that repeat the previous plate within 1 s. Default 0.1. */
  repeatRate?: number;
  /**
   * What a scene shows. `street` (default): a 640x360 street with the car and the camera's
   * time caption. `plate`: the read's plate crop picture, made a file of its own by a COM
   * segment naming the scene and its caption. A street scene costs 15-25 ms of pure-JS
   * JPEG encoding and a crop 1-2 ms: 2,000 street scenes took 36 s of one core (over
   * 200 s on a loaded CI machine) before the runner under test read anything, so a test
   * that makes thousands of reads and checks their delivery, not what a scene looks
   * like, asks for `plate`.
   */
  scenes?: 'street' | 'plate';
}

export interface ReadGenerator {
  rng: Rng;
  /** The next read, captured at or after `nowMs`; a repeat is dated 100-900 ms after its original. */
  /** `clockReset`: the camera's clock was just set back; this read's time may be earlier than the last. */
  next(nowMs: number, clockReset?: boolean): PlateRead;
}

export function createReadGenerator(options: ReadGeneratorOptions = {}): ReadGenerator {
  const rng = createRng(options.seed ?? 1);
  const cropBytes = options.cropBytes ?? 20_000;
  const sceneBytes = options.sceneBytes ?? 65_000;
  let seq = 0;
  let previous: PlateRead | undefined;
  const size = (base: number): number => Math.round(base * (0.85 + rng() * 0.3));
  return {
    rng,
    next(nowMs, clockReset = false) {
      const repeat = previous && !previous.unknown && chance(rng, options.repeatRate ?? 0.1) ? previous : undefined;
      const unknown = !repeat && chance(rng, options.unknownRate ?? 0.05);
      // Times increase, except right after the camera's clock was set back (`clockReset`):
      // then they follow the clock, as a real camera's do.
      const lastTime = clockReset ? -Infinity : (previous?.timeMs ?? -Infinity);
      const timeMs = repeat && !clockReset ? repeat.timeMs + randomInt(rng, 100, 900) : Math.max(Math.floor(nowMs), lastTime + 1);
      const read: PlateRead = {
        seq: seq++,
        plate: repeat ? repeat.plate : unknown ? 'unknown' : plateText(rng),
        unknown,
        timeMs: Math.max(timeMs, lastTime + 1),
        confidence: unknown ? 0 : randomInt(rng, 60, 99),
        direction: pick(rng, ['forward', 'reverse', 'unknown'] as const),
        vehicleType: pick(rng, ['vehicle', 'SUVMPV', 'truck', 'largeBus', 'van']),
        color: pick(rng, ['white', 'black', 'gray', 'red', 'blue', 'unknown']),
        brandCode: pick(rng, [1036, 1060, 1000, 1024]),
        crop: Buffer.alloc(0),
        scene: Buffer.alloc(0),
        ...(repeat ? { repeatOf: repeat.seq } : {}),
      };
      // The pictures show the plate as read (a blank plate for an unread one); one seed drawn
      // from the run's PRNG per read keeps a seeded run replaying the same bytes.
      const seed = Math.floor(rng() * 2 ** 32);
      const caption = cameraCaption(read.timeMs);
      if (options.scenes === 'plate') {
        const drawn = plateCropJpeg(read.plate, { seed });
        read.crop = padJpeg(drawn, size(cropBytes), seed);
        read.scene = padJpeg(withComment(drawn, Buffer.from(`scene ${caption}`, 'latin1')), size(sceneBytes), seed);
      } else {
        read.crop = plateCropJpeg(read.plate, { seed, size: size(cropBytes) });
        read.scene = sceneJpeg(read.plate, { seed, size: size(sceneBytes), caption });
      }
      previous = read;
      return read;
    },
  };
}

/** What a simulator hands to a receiver; e2e tests compare the hub's records with these. */
export interface DeliveredRead {
  /** The id the camera gives: vendor_a push UUID, vendor_a pull picName, vendor_b event id. */
  detectionId: string;
  /** Raw plate as sent (`unknown` for failed reads; use `normalizedPlate` to compare). */
  plate: string;
  unknown: boolean;
  /** detectionId of the read this one repeats within 1 s (vendor_a quirk). */
  repeatOf?: string;
  /** Capture time in UTC at the precision the wire format carries, as the camera's clock shows it. */
  time: string;
  /** True capture time (epoch ms), when the simulator models a camera clock error. */
  trueTimeMs?: number;
  /** MAC as the camera/NVR spells it. */
  mac: string;
  images: { plateCrop?: string; fullScene?: string };
}
