/** JPEG bytes to an RGBA raster, with limits so a hostile file cannot take the appliance's memory. */
import jpeg from 'jpeg-js';
import type { Raster } from './raster.ts';
import { ReaderError } from './types.ts';

// 50 MP covers any camera's still (a 4K frame is 8.3 MP); 600 MB is jpeg-js's working ceiling.
const MAX_MEGAPIXELS = 50;
const MAX_MEMORY_MB = 600;

export function decodeJpeg(bytes: Uint8Array): Raster {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    throw new ReaderError('undecodable', 'not a JPEG (no start-of-image marker)');
  }
  try {
    const image = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_MEGAPIXELS,
      maxMemoryUsageInMB: MAX_MEMORY_MB,
    });
    if (image.width < 1 || image.height < 1) throw new Error('empty image');
    return { width: image.width, height: image.height, data: image.data };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReaderError('undecodable', `JPEG cannot be decoded: ${reason.split('\n')[0]}`);
  }
}
