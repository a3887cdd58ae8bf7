/**
 * vendor_b updates-socket packets written byte by byte from the documented layout
 * (docs/camera-formats.md "vendor_b updates WebSocket"), NOT produced by `packet-encoder.ts`, so
 * the decoder is checked against the format rather than against our own reading of it:
 *
 *   byte 0 packet type (1 action, 2 data) | 1 format (1 JSON, 2 UTF-8 string, 3 raw)
 *   byte 2 deflated (0/1) | 3 reserved, 0 | 4-7 payload size on the wire, uint32 big-endian
 *
 * followed by that many payload bytes, then the data frame's header and payload. Deflated
 * payloads are zlib streams (`78 9c ...`) as in the real capture pasted as hex.
 * One event's life: an `add` (plain frames), a plate `update` (plain action frame, data as
 * a format-2 UTF-8 string holding JSON) and the closing `update` (both frames deflated,
 * `01 01 01 00` as captured).
 */

const hex = (text: string): number[] => (text.replace(/\s+/g, '').match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16));
const utf8 = (text: string): number[] => [...Buffer.from(text, 'utf8')];
const bytes = (...parts: number[][]): Uint8Array => Uint8Array.from(parts.flat());

export const EVENT_ID = '6123456789abcdef01234567';
export const CAMERA_ID = '89abcdef0123456789abcdef';

export const ADD_ACTION = '{"action":"add","newUpdateId":"0d5f2a3e-1c4b-4e8a-9f10-2b3c4d5e6f70","modelKey":"event","id":"6123456789abcdef01234567"}';
export const ADD_DATA =
  '{"id":"6123456789abcdef01234567","modelKey":"event","type":"smartDetectZone","start":1900000500000,"end":null,"score":10,' +
  '"smartDetectTypes":["vehicle"],"smartDetectEvents":[],"camera":"89abcdef0123456789abcdef","metadata":{},"thumbnail":"e-6123456789abcdef01234567"}';
export const PLATE_ACTION = '{"action":"update","newUpdateId":"1e6a3b4f-2d5c-4f9b-8a21-3c4d5e6f7081","modelKey":"event","id":"6123456789abcdef01234567"}';
export const PLATE_DATA =
  '{"smartDetectTypes":["vehicle","licensePlate"],"metadata":{"detectedThumbnails":[{"type":"vehicle","name":"LM34 NOP","confidence":91,' +
  '"clockBestWall":1900000503000,"attributes":{"vehicleType":{"val":"sedan","confidence":70},"color":{"val":"black","confidence":65}},' +
  '"group":{"id":"group-2","matchedName":"LM34NOP","confidence":82}}]}}';
/** `{"action":"update","newUpdateId":"2f7b4c50-3e6d-40ac-9b32-4d5e6f708192","modelKey":"event","id":"6123456789abcdef01234567"}`, 123 bytes, deflated to 114. */
export const END_ACTION_DEFLATED = hex(`
  789c2dcb4b0ac2301446e1bdfce304d23c9beca038760149ee0d143475902a22dd7b519c9d6f703ec875ac5b47c2fea03c18029d5fd7
  5f2f8404dd42b1d52969d893b42a57198bd1d29263df829aa7a82170df886f177e23819fdc0704d6efee276dacf3618eb954e2a6fec6
  7102fad12351`);
/** `{"end":1900000509000,"score":88}`, 32 bytes, deflated to 35. */
export const END_DATA_DEFLATED = hex('789cab564acd4b51b232b4340001530310ada3549c9c5f94aa646561510b008819086c');

/** `add`: action header 01 01 00 00 + size 120 (0x78); data header 02 01 00 00 + size 266 (0x010a). */
export const ADD_PACKET = bytes(hex('01 01 00 00 00 00 00 78'), utf8(ADD_ACTION), hex('02 01 00 00 00 00 01 0a'), utf8(ADD_DATA));

/** Plate `update`: action 01 01 00 00 + 123 (0x7b); data as a UTF-8 string, 02 02 00 00 + 332 (0x014c). */
export const PLATE_PACKET = bytes(hex('01 01 00 00 00 00 00 7b'), utf8(PLATE_ACTION), hex('02 02 00 00 00 00 01 4c'), utf8(PLATE_DATA));

/** Closing `update`, both frames deflated as captured: 01 01 01 00 + 114 (0x72); 02 01 01 00 + 35 (0x23). */
export const END_PACKET = bytes(hex('01 01 01 00 00 00 00 72'), END_ACTION_DEFLATED, hex('02 01 01 00 00 00 00 23'), END_DATA_DEFLATED);

/** A device-state packet for another model key (`camera`), which the decoder must ignore. */
export const CAMERA_ACTION = '{"action":"update","newUpdateId":"3a8c5d61-4f7e-41bd-8c43-5e6f708192a3","modelKey":"camera","id":"89abcdef0123456789abcdef"}';
export const CAMERA_DATA = '{"lastMotion":1900000500100,"isMotionDetected":true}';
/** 01 01 00 00 + 124 (0x7c); 02 01 00 00 + 52 (0x34). */
export const CAMERA_PACKET = bytes(hex('01 01 00 00 00 00 00 7c'), utf8(CAMERA_ACTION), hex('02 01 00 00 00 00 00 34'), utf8(CAMERA_DATA));

/**
 * Packets whose headers disagree with their bytes (docs/camera-formats.md "vendor_b updates
 * WebSocket": "reject anything else"), each with the reason the decoder gives. Built from
 * ADD_PACKET's documented bytes.
 */
export const MALFORMED_PACKETS: ReadonlyArray<{ name: string; bytes: Uint8Array; reason: RegExp }> = [
  { name: 'one padding byte after the data frame', bytes: bytes([...ADD_PACKET], [0x00]), reason: /packet length 403 does not match the frame sizes \(402\)/ },
  {
    name: 'data frame cut one byte short',
    bytes: ADD_PACKET.subarray(0, ADD_PACKET.length - 1),
    reason: /packet length 401 does not match the frame sizes \(402\)/,
  },
  {
    name: 'action size claims 4 GiB',
    bytes: bytes(hex('01 01 00 00 ff ff ff ff'), [...ADD_PACKET.subarray(8)]),
    reason: /action frame size 4294967295 exceeds the packet/,
  },
  {
    name: 'action size one byte too small',
    bytes: bytes(hex('01 01 00 00 00 00 00 77'), [...ADD_PACKET.subarray(8)]),
    reason: /frame type 125 where 2 was expected/,
  },
  { name: 'header only', bytes: Uint8Array.from(hex('01 01 00 00 00 00 00 78')), reason: /exceeds the packet \(8 bytes\)/ },
  { name: 'data frame first', bytes: bytes(hex('02 01 00 00 00 00 00 78'), [...ADD_PACKET.subarray(8)]), reason: /frame type 2 where 1 was expected/ },
  { name: 'payload format 4', bytes: bytes(hex('01 04 00 00 00 00 00 78'), [...ADD_PACKET.subarray(8)]), reason: /unknown payload format 4/ },
  { name: 'deflated flag 2', bytes: bytes(hex('01 01 02 00 00 00 00 78'), [...ADD_PACKET.subarray(8)]), reason: /bad deflated flag 2/ },
  {
    name: 'deflated flag on plain JSON',
    bytes: bytes(hex('01 01 01 00 00 00 00 78'), [...ADD_PACKET.subarray(8)]),
    reason: /action frame: frame is not valid zlib data/,
  },
];
