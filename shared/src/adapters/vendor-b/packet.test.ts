import t from 'tap';
import { deflateSync } from 'node:zlib';
import { FORMAT_RAW, FORMAT_STRING, FRAME_ACTION, FRAME_DATA, encodeFrame, encodePacket, joinFrames } from './packet-encoder.ts';
import { MAX_FRAME_BYTES, frameBytes, frameJson, splitPacket } from './packet.ts';

const action = { action: 'add' as const, newUpdateId: 'u-1', modelKey: 'event', id: 'abc' };
const data = { id: 'abc', type: 'smartDetectZone', start: 1 };

t.test('deflated packet: header bytes as captured, frames decode', async (t) => {
  const packet = encodePacket(action, data);
  t.same([...packet.subarray(0, 4)], [1, 1, 1, 0], 'action header 01 01 01 00');
  t.same([...packet.subarray(8, 10)], [0x78, 0x9c], 'zlib stream');
  const split = splitPacket(packet);
  if (!split.ok) throw new Error(split.reason);
  t.same(frameJson(split.value.action), { ok: true, value: action });
  t.same(frameJson(split.value.data), { ok: true, value: data });
});

t.test('plain packet and string/raw formats', async (t) => {
  const split = splitPacket(encodePacket(action, data, { deflate: false }));
  if (!split.ok) throw new Error(split.reason);
  t.equal(split.value.data.deflated, false);
  t.same(frameJson(split.value.data), { ok: true, value: data });
  const str = splitPacket(joinFrames(encodeFrame(FRAME_ACTION, { payload: action }), encodeFrame(FRAME_DATA, { payload: '{"end":5}', format: FORMAT_STRING })));
  if (!str.ok) throw new Error(str.reason);
  t.same(frameJson(str.value.data), { ok: true, value: { end: 5 } }, 'a string frame holding JSON');
  const raw = splitPacket(
    joinFrames(
      encodeFrame(FRAME_ACTION, { payload: action }),
      encodeFrame(FRAME_DATA, { payload: new Uint8Array([1, 2, 3]), format: FORMAT_RAW, deflate: false }),
    ),
  );
  if (!raw.ok) throw new Error(raw.reason);
  t.same([...raw.value.data.payload], [1, 2, 3]);
  t.equal(frameJson(raw.value.data).ok, false, 'raw bytes are not JSON');
});

t.test('structural errors', async (t) => {
  const good = encodePacket(action, data);
  const cases: [string, Uint8Array, RegExp][] = [
    ['truncated in the first header', good.subarray(0, 5), /truncated/],
    ['truncated in the data frame', good.subarray(0, good.length - 1), /does not match/],
    ['trailing byte', Buffer.concat([good, Buffer.from([0])]), /does not match/],
    ['frames swapped', joinFrames(encodeFrame(FRAME_DATA, { payload: data }), encodeFrame(FRAME_ACTION, { payload: action })), /frame type/],
    ['unknown format', Buffer.from([1, 9, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]), /format/],
    ['bad deflated flag', Buffer.from([1, 1, 7, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]), /deflated/],
  ];
  for (const [name, bytes, reason] of cases) {
    const r = splitPacket(bytes);
    t.equal(r.ok, false, name);
    if (!r.ok) t.match(r.reason, reason, name);
  }
  const huge = Buffer.from(good);
  huge.writeUInt32BE(0xffffffff, 4);
  const r = splitPacket(huge);
  t.equal(r.ok, false, 'huge declared size is rejected without allocating');
  if (!r.ok) t.match(r.reason, /exceeds/);
  const empty = splitPacket(joinFrames(encodeFrame(FRAME_ACTION, { payload: action, deflate: false }), Buffer.from([2, 1, 0, 0, 0, 0, 0, 0])));
  t.equal(empty.ok, true, 'a zero-size data frame is a valid layout');
});

t.test('payload errors: bad zlib, zip bomb past the cap', async (t) => {
  const badZlib = { type: FRAME_DATA, format: 1, deflated: true, payload: Buffer.from('789c0000ffff00', 'hex') };
  t.same(frameBytes(badZlib), { ok: false, reason: 'frame is not valid zlib data' });
  const bomb = { type: FRAME_DATA, format: 1, deflated: true, payload: deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20)) };
  t.ok(bomb.payload.length < 100_000, 'a small packet');
  t.same(frameBytes(bomb), { ok: false, reason: 'deflated frame inflates past 1 MiB' });
  const atCap = { type: FRAME_DATA, format: 1, deflated: true, payload: deflateSync(Buffer.alloc(MAX_FRAME_BYTES, 0x20)) };
  t.equal(frameBytes(atCap).ok, true, 'exactly 1 MiB is allowed');
  const notUtf8 = { type: FRAME_DATA, format: 1, deflated: false, payload: Buffer.from([0xff, 0xfe]) };
  t.same(frameJson(notUtf8), { ok: false, reason: 'frame is not valid UTF-8 JSON' });
});
