import jpeg from 'jpeg-js';
import type { PlateBox } from '../reader/types.ts';
import { greyThumbnail } from './frame-change.ts';
import type { GreyThumbnail } from './frame-change.ts';

/**
 * Pixel work on camera frames for the ordinary-camera kind: decode a JPEG into the change
 * check's grey thumbnail, and cut a passage's plate crop out of its best frame as a new JPEG.
 * jpeg-js is plain JavaScript: a 1080p decode takes about 330 ms and a crop encode about 110 ms
 * here, so this runs in the frame worker (frame-worker.ts), never on the appliance's main loop.
 */

/** Largest frame decoded: 4K is 8.3 MP; a camera answering more is broken or hostile. */
const MAX_MEGAPIXELS = 12;
const MAX_DECODE_MB = 256;

export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

/** JPEG files start with SOI (FF D8) and a marker; anything else is named as what it is not. */
export const looksLikeJpeg = (bytes: Uint8Array): boolean => bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

function decode(bytes: Uint8Array): { width: number; height: number; data: Uint8Array } {
  if (!looksLikeJpeg(bytes)) throw new FrameError(`not a JPEG (${bytes.length} bytes starting ${Buffer.from(bytes.subarray(0, 8)).toString('hex')})`);
  try {
    return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_MEGAPIXELS, maxMemoryUsageInMB: MAX_DECODE_MB });
  } catch (error) {
    throw new FrameError(`JPEG not decodable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function thumbnailOfJpeg(bytes: Uint8Array): { thumbnail: GreyThumbnail; width: number; height: number } {
  const image = decode(bytes);
  return { thumbnail: greyThumbnail(image.data, image.width, image.height), width: image.width, height: image.height };
}

/**
 * The plate box widened by half its height on every side (the crop shows the plate's frame and
 * some bumper, as a camera's own crop does), clamped to the frame, encoded at quality 85.
 */
export function cropJpeg(bytes: Uint8Array, box: PlateBox): Uint8Array {
  const image = decode(bytes);
  const margin = Math.round(box.height / 2);
  const x0 = clamp(Math.floor(box.x - margin), 0, image.width - 1);
  const y0 = clamp(Math.floor(box.y - margin), 0, image.height - 1);
  const x1 = clamp(Math.ceil(box.x + box.width + margin), x0 + 1, image.width);
  const y1 = clamp(Math.ceil(box.y + box.height + margin), y0 + 1, image.height);
  const width = x1 - x0;
  const height = y1 - y0;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const from = ((y0 + y) * image.width + x0) * 4;
    data.set(image.data.subarray(from, from + width * 4), y * width * 4);
  }
  return new Uint8Array(jpeg.encode({ data, width, height }, 85).data);
}

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));
