/**
 * JPEG encoding for the simulators' pictures (jpeg-js, baseline, deterministic: the same
 * pixels and quality give the same bytes) and padding to an exact size.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';
import jpeg from 'jpeg-js';
import type { Raster } from './raster.ts';

interface Encoder {
  encode(image: { data: Buffer; width: number; height: number }, quality: number): Buffer;
}

/**
 * One encoder, built once. jpeg-js's exported `encode()` constructs a new JPEGEncoder on
 * every call, and the constructor fills 65,535-entry Huffman lookup tables: 350-500 ms a
 * picture here, against 1-2 ms to encode a 240x80 crop and 15-25 ms a 640x360 scene with
 * the tables built. The library does not export the class, so its encoder source is
 * evaluated once to reach it (`encode(image, quality)` on an instance is the library's own
 * reusable method). Should a later version rename the class, `jpeg.encode` still works, slowly.
 */
const encoder: Encoder = (() => {
  try {
    const path = createRequire(import.meta.url).resolve('jpeg-js/lib/encoder.js');
    const factory = runInThisContext(`(function (module) {\n${readFileSync(path, 'utf8')}\nreturn JPEGEncoder;\n})`, { filename: path }) as (
      module: unknown,
    ) => new (quality: number) => Encoder;
    return new (factory({ exports: {} }))(70);
  } catch {
    return { encode: (image, quality) => jpeg.encode(image, quality).data };
  }
})();

/** Baseline JPEG of the raster; 70 keeps a 640x360 scene at about 10-25 kB and glyph edges crisp. */
export function encodeJpeg(raster: Raster, quality = 70): Buffer {
  return Buffer.from(encoder.encode(raster, quality));
}

const MAX_SEGMENT = 0xffff + 2; // marker (2) + length field counting itself (max 65,535)

/**
 * `picture` grown to exactly `size` bytes, still a valid JPEG with the same pixels. Benchmarks
 * and tests ask for realistic image sizes (a camera's crop is 10-30 kB, its scene 50-100 kB)
 * while a drawn picture is a few kB, so the difference goes into COM (comment) segments right
 * after the JFIF header, which every decoder skips. 1-3 missing bytes are too few for a
 * segment (4 bytes at least): those become fill bytes (0xFF) before the next marker, which
 * the JPEG standard allows (ITU T.81 B.1.1.2). The filler comes from `seed` and never holds
 * 0xFF, so an EOI marker (FF D9) appears only at the end, as in real entropy-coded data, and
 * it does not compress, as camera JPEGs do not. A picture already at or over `size` is
 * returned as it is.
 */
export function padJpeg(picture: Buffer, size: number, seed = 1): Buffer {
  let missing = size - picture.length;
  if (missing <= 0) return picture;
  // After SOI, and after the APP0 (JFIF) segment when there is one: JFIF wants APP0 first.
  let at = 2;
  if (picture[2] === 0xff && picture[3] === 0xe0) at = 4 + picture.readUInt16BE(4);
  let state = seed >>> 0 || 1;
  const filler = (n: number): Buffer => {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      out[i] = (state >>> 23) % 255; // 0..254
    }
    return out;
  };
  const segments: Buffer[] = [];
  while (missing > 0) {
    if (missing < 4) {
      segments.push(Buffer.alloc(missing, 0xff));
      break;
    }
    let length = Math.min(missing, MAX_SEGMENT);
    if (missing - length > 0 && missing - length < 4) length -= 4; // leave room for a whole last segment
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(length - 2, 2);
    segments.push(head, filler(length - 4));
    missing -= length;
  }
  return Buffer.concat([picture.subarray(0, at), ...segments, picture.subarray(at)]);
}

/**
 * `picture` with one more COM segment holding `payload` (bytes mapped to 0..254 so no marker
 * can appear): a way to make pictures with the same pixels distinct files.
 */
export function withComment(picture: Buffer, payload: Uint8Array): Buffer {
  let at = 2;
  if (picture[2] === 0xff && picture[3] === 0xe0) at = 4 + picture.readUInt16BE(4);
  const head = Buffer.from([0xff, 0xfe, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  const body = Buffer.alloc(payload.length);
  payload.forEach((b, i) => (body[i] = b % 255));
  return Buffer.concat([picture.subarray(0, at), head, body, picture.subarray(at)]);
}
