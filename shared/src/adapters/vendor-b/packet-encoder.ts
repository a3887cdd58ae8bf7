import { deflateSync } from 'node:zlib';
import { FORMAT_JSON, FORMAT_RAW, FORMAT_STRING, FRAME_ACTION, FRAME_DATA, HEADER_SIZE } from './packet.ts';

/**
 * Encoder for the vendor_b updates WebSocket packet (docs/camera-formats.md "vendor_b updates
 * WebSocket"), the inverse of packet.ts. Tests build fixtures with it and the camera simulator
 * speaks the real protocol with it. Real consoles deflate both frames hence the default.
 */

export interface UpdateAction {
  action: 'add' | 'update' | 'remove';
  newUpdateId?: string;
  modelKey: string;
  id: string;
}

export interface FrameSpec {
  /** JSON value (format 1), string (format 2) or bytes (format 3). */
  payload: unknown;
  format?: typeof FORMAT_JSON | typeof FORMAT_STRING | typeof FORMAT_RAW;
  deflate?: boolean;
}

function payloadBytes(spec: FrameSpec): { format: number; bytes: Uint8Array } {
  const format = spec.format ?? FORMAT_JSON;
  let bytes: Uint8Array;
  if (format === FORMAT_RAW && spec.payload instanceof Uint8Array) bytes = spec.payload;
  else if (format === FORMAT_STRING && typeof spec.payload === 'string') bytes = Buffer.from(spec.payload, 'utf8');
  else bytes = Buffer.from(JSON.stringify(spec.payload), 'utf8');
  return { format, bytes: spec.deflate === false ? bytes : deflateSync(bytes) };
}

/** One frame: its 8-byte header followed by the (possibly deflated) payload. */
export function encodeFrame(type: number, spec: FrameSpec): Uint8Array {
  const { format, bytes } = payloadBytes(spec);
  const out = Buffer.alloc(HEADER_SIZE + bytes.length);
  out.writeUInt8(type, 0);
  out.writeUInt8(format, 1);
  out.writeUInt8(spec.deflate === false ? 0 : 1, 2);
  out.writeUInt8(0, 3);
  out.writeUInt32BE(bytes.length, 4);
  out.set(bytes, HEADER_SIZE);
  return out;
}

/** A whole packet: action frame then data frame. */
export function encodePacket(action: UpdateAction, data: unknown, options: { deflate?: boolean } = {}): Uint8Array {
  const deflate = options.deflate ?? true;
  return Buffer.concat([encodeFrame(FRAME_ACTION, { payload: action, deflate }), encodeFrame(FRAME_DATA, { payload: data, deflate })]);
}

/** Packet from two hand-made frames, for odd formats and broken-packet tests. */
export const joinFrames = (action: Uint8Array, data: Uint8Array): Uint8Array => Buffer.concat([action, data]);

export { FRAME_ACTION, FRAME_DATA, FORMAT_JSON, FORMAT_STRING, FORMAT_RAW };
