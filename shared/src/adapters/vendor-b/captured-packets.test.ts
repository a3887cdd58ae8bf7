import t from 'tap';
import {
  ADD_ACTION,
  ADD_DATA,
  ADD_PACKET,
  CAMERA_PACKET,
  END_PACKET,
  EVENT_ID,
  MALFORMED_PACKETS,
  PLATE_ACTION,
  PLATE_DATA,
  PLATE_PACKET,
} from './captured-packets.test-helper.ts';
import { decodeMessage } from './message.ts';
import { encodePacket } from './packet-encoder.ts';
import { splitPacket } from './packet.ts';
import { VendorBStream } from './stream.ts';
import { context } from './fixtures.test-helper.ts';

t.test('documented packets decode: header fields, frame boundaries, payloads', async (t) => {
  const cases = [
    { name: 'add (plain)', packet: ADD_PACKET, flags: [1, 1, false, 2, 1, false], action: JSON.parse(ADD_ACTION), data: JSON.parse(ADD_DATA) },
    {
      name: 'plate update (data as UTF-8 string)',
      packet: PLATE_PACKET,
      flags: [1, 1, false, 2, 2, false],
      action: JSON.parse(PLATE_ACTION),
      data: JSON.parse(PLATE_DATA),
    },
    {
      name: 'end update (both deflated, as captured)',
      packet: END_PACKET,
      flags: [1, 1, true, 2, 1, true],
      action: { action: 'update', newUpdateId: '2f7b4c50-3e6d-40ac-9b32-4d5e6f708192', modelKey: 'event', id: EVENT_ID },
      data: { end: 1900000509000, score: 88 },
    },
  ];
  for (const c of cases) {
    const split = splitPacket(c.packet);
    if (!split.ok) {
      t.fail(`${c.name}: ${split.reason}`);
      continue;
    }
    const { action, data } = split.value;
    t.same([action.type, action.format, action.deflated, data.type, data.format, data.deflated], c.flags, `${c.name}: header fields`);
    t.equal(8 + action.payload.length + 8 + data.payload.length, c.packet.length, `${c.name}: frames cover the packet exactly`);
    const message = decodeMessage(c.packet);
    if (!message.ok) {
      t.fail(`${c.name}: ${message.reason}`);
      continue;
    }
    t.same(
      { action: message.value.action, modelKey: message.value.modelKey, id: message.value.id },
      { action: c.action.action, modelKey: 'event', id: EVENT_ID },
      `${c.name}: action frame`,
    );
    t.same(message.value.data(), { ok: true, value: c.data }, `${c.name}: data frame`);
  }
});

t.test('our encoder writes the documented bytes too', async (t) => {
  // The simulator and other tests rely on encodePacket; the documented bytes pin it.
  t.same([...encodePacket(JSON.parse(ADD_ACTION), JSON.parse(ADD_DATA), { deflate: false })], [...ADD_PACKET]);
});

t.test('the documented event life gives one detection; a camera-state packet is ignored', async (t) => {
  const stream = new VendorBStream(context);
  t.same(stream.push(ADD_PACKET), { detections: [], errors: [], ignored: 0 });
  t.same(stream.push(CAMERA_PACKET), { detections: [], errors: [], ignored: 1 }, 'modelKey camera');
  t.same(stream.push(PLATE_PACKET), { detections: [], errors: [], ignored: 0 });
  const ended = stream.push(END_PACKET);
  t.same(ended.errors, []);
  t.match(
    ended.detections.map((d) => d.detection),
    [
      {
        detection_id: EVENT_ID,
        camera: { mac: '7cd8b328641b' },
        plate: { text: 'LM34NOP', confidence: 0.82 },
        timestamp: new Date(1900000503000).toISOString(),
      },
    ],
  );
});

t.test('packets whose headers disagree with their size are rejected with the reason; the stream goes on', async (t) => {
  const stream = new VendorBStream(context);
  for (const bad of MALFORMED_PACKETS) {
    const split = splitPacket(bad.bytes);
    const message = decodeMessage(bad.bytes);
    t.equal(message.ok, false, `${bad.name}: not decoded`);
    if (!message.ok) t.match(message.reason, bad.reason, `${bad.name}: ${message.reason}`);
    if (!split.ok) t.match(split.reason, bad.reason, `${bad.name}: splitPacket says why`);
    const outcome = stream.push(bad.bytes);
    t.same(outcome.detections, []);
    t.match(outcome.errors, [{ reason: bad.reason }], `${bad.name}: one error, no throw`);
  }
  for (const packet of [ADD_PACKET, PLATE_PACKET]) t.same(stream.push(packet).errors, []);
  t.equal(stream.push(END_PACKET).detections.length, 1, 'a good event after the bad packets is still read');
});
