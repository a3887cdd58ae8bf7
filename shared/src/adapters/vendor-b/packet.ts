import { inflateSync } from 'node:zlib';
import { parseJsonBytes } from './json.ts';
import type { Result } from './result.ts';

/**
 * The private updates WebSocket packet (docs/camera-formats.md "vendor_b updates WebSocket"): an
 * 8-byte header, the action frame, an 8-byte header, the data frame. Header (big-endian): type (1
 * action, 2 data), payload format (1 JSON, 2 UTF-8 string, 3 raw), deflated (0/1), reserved, uint32
 * size of the payload as sent (compressed size when deflated).
 */

export const HEADER_SIZE = 8;
export const FRAME_ACTION = 1;
export const FRAME_DATA = 2;
export const FORMAT_JSON = 1;
export const FORMAT_STRING = 2;
export const FORMAT_RAW = 3;

/**
 * Decoded payload cap. A single event or device patch is a few kB; 1 MiB leaves room and
 * stops a zip bomb (a few kB of zlib that inflates to gigabytes) before it is allocated.
 */
export const MAX_FRAME_BYTES = 1024 * 1024;

export interface Frame {
  type: number;
  format: number;
  deflated: boolean;
  /** Bytes as on the wire (still compressed when `deflated`). */
  payload: Uint8Array;
}

function readHeader(bytes: Uint8Array, offset: number, expectedType: number): Result<Omit<Frame, 'payload'> & { size: number }> {
  if (bytes.length < offset + HEADER_SIZE) return { ok: false, reason: 'packet truncated inside a frame header' };
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, HEADER_SIZE);
  const type = view.getUint8(0);
  const format = view.getUint8(1);
  const deflated = view.getUint8(2);
  if (type !== expectedType) return { ok: false, reason: `frame type ${type} where ${expectedType} was expected` };
  if (format < FORMAT_JSON || format > FORMAT_RAW) return { ok: false, reason: `unknown payload format ${format}` };
  if (deflated > 1) return { ok: false, reason: `bad deflated flag ${deflated}` };
  return { ok: true, value: { type, format, deflated: deflated === 1, size: view.getUint32(4, false) } };
}

/**
 * Split a packet into its two frames. The total length must be exactly
 * 8 + size1 + 8 + size2: anything else is a truncated or padded packet (docs/camera-formats.md
 * "vendor_b updates WebSocket"). Sizes are checked before any slice, so a huge declared size
 * allocates nothing.
 */
export function splitPacket(bytes: Uint8Array): Result<{ action: Frame; data: Frame }> {
  const first = readHeader(bytes, 0, FRAME_ACTION);
  if (!first.ok) return first;
  const dataHeaderAt = HEADER_SIZE + first.value.size;
  if (dataHeaderAt + HEADER_SIZE > bytes.length) {
    return { ok: false, reason: `action frame size ${first.value.size} exceeds the packet (${bytes.length} bytes)` };
  }
  const second = readHeader(bytes, dataHeaderAt, FRAME_DATA);
  if (!second.ok) return second;
  const expected = dataHeaderAt + HEADER_SIZE + second.value.size;
  if (expected !== bytes.length) {
    return { ok: false, reason: `packet length ${bytes.length} does not match the frame sizes (${expected})` };
  }
  const frame = (h: typeof first.value, at: number): Frame => ({
    type: h.type,
    format: h.format,
    deflated: h.deflated,
    payload: bytes.subarray(at, at + h.size),
  });
  return {
    ok: true,
    value: { action: frame(first.value, HEADER_SIZE), data: frame(second.value, dataHeaderAt + HEADER_SIZE) },
  };
}

/** True when the bytes have the exact two-frame layout (for `recognizes`). */
export const looksLikePacket = (bytes: Uint8Array): boolean => splitPacket(bytes).ok;

/** The frame payload after inflation, capped at MAX_FRAME_BYTES. */
export function frameBytes(frame: Frame): Result<Uint8Array> {
  if (!frame.deflated) {
    if (frame.payload.length > MAX_FRAME_BYTES) return { ok: false, reason: 'frame payload over 1 MiB' };
    return { ok: true, value: frame.payload };
  }
  try {
    return { ok: true, value: inflateSync(frame.payload, { maxOutputLength: MAX_FRAME_BYTES }) };
  } catch (error) {
    // RangeError when the output would pass the cap; zlib errors for corrupt data.
    const tooBig = error instanceof RangeError;
    return { ok: false, reason: tooBig ? 'deflated frame inflates past 1 MiB' : 'frame is not valid zlib data' };
  }
}

/** JSON content of a frame: format 1, or a format-2 string that holds JSON. */
export function frameJson(frame: Frame): Result<unknown> {
  if (frame.format === FORMAT_RAW) return { ok: false, reason: 'frame is raw bytes, not JSON' };
  const bytes = frameBytes(frame);
  if (!bytes.ok) return bytes;
  const json = parseJsonBytes(bytes.value);
  return json.ok ? json : { ok: false, reason: `frame is ${json.reason}` };
}
