import t from 'tap';
import { encodeFrame, encodePacket, FRAME_ACTION, FRAME_DATA, joinFrames } from './packet-encoder.ts';
import { MAX_REMEMBERED_EVENTS, VendorBStream, mergePatch } from './stream.ts';
import { context, fixtureJson, fixtureText } from './fixtures.test-helper.ts';

const ID = '6123456789abcdef01234567';
const add = fixtureJson('event-in-progress-add.json');
const platePatch = fixtureJson('event-update-plate.json');
const endPatch = fixtureJson('event-update-end.json');
const act = (action: 'add' | 'update' | 'remove', id = ID, modelKey = 'event') => ({ action, modelKey, id, newUpdateId: `u-${action}` });

for (const deflate of [true, false]) {
  t.test(`${deflate ? 'deflated' : 'plain'} add, plate update, end update: one detection at the end`, async (t) => {
    const stream = new VendorBStream(context);
    t.same(stream.push(encodePacket(act('add'), add, { deflate })), { detections: [], errors: [], ignored: 0 });
    t.same(stream.push(encodePacket(act('update'), platePatch, { deflate })).detections, [], 'plate known, not ended');
    const ended = stream.push(encodePacket(act('update'), endPatch, { deflate }));
    t.equal(ended.detections.length, 1);
    t.same(ended.detections[0]?.detection, {
      detection_id: ID,
      timestamp: new Date(1900000503000).toISOString(),
      camera: { id: '89abcdef0123456789abcdef', mac: '7cd8b328641b' },
      plate: { text: 'LM34NOP', confidence: 0.82 },
      vehicle: { direction: 'unknown', vehicle_type: 'car', color: 'black' },
    });
    const again = stream.push(encodePacket(act('update'), { end: 1900000509500, score: 90 }, { deflate }));
    t.same(again, { detections: [], errors: [], ignored: 1 }, 'a repeated end update is not a second detection');
    const full = { ...(add as object), ...(platePatch as object), ...(endPatch as object) };
    t.same(stream.push(encodePacket(act('add'), full, { deflate })).ignored, 1, 'nor is a complete re-sent add');
    t.same(stream.flush(), { detections: [], errors: [], ignored: 0 });
  });
}

t.test('plate arriving after the end still emits once', async (t) => {
  const stream = new VendorBStream(context);
  stream.push(encodePacket(act('add'), add));
  t.same(stream.push(encodePacket(act('update'), endPatch)).detections, [], 'ended, no plate yet');
  t.equal(stream.push(encodePacket(act('update'), platePatch)).detections.length, 1);
});

t.test('other modelKeys, remove, unknown ids and non-smart events are ignored', async (t) => {
  const stream = new VendorBStream(context);
  const camera = fixtureJson('camera-update.json');
  t.same(stream.push(encodePacket(act('update', 'cam-1', 'camera'), camera)).ignored, 1);
  t.same(stream.push(encodePacket(act('remove'), {})).ignored, 1);
  t.same(stream.push(encodePacket(act('update', 'never-seen'), endPatch)).ignored, 1);
  const motion = { id: 'm1', type: 'motion', start: 1, end: null, camera: 'x' };
  t.same(stream.push(encodePacket(act('add', 'm1'), motion)).ignored, 1);
  t.same(stream.push(encodePacket(act('update', 'm1'), { end: 2 })).ignored, 1);
  t.equal(stream.flush().detections.length, 0);
});

t.test('a non-event packet with a corrupt data frame is ignored without inflating it', async (t) => {
  const stream = new VendorBStream(context);
  const packet = joinFrames(
    encodeFrame(FRAME_ACTION, { payload: act('update', 'nvr-1', 'nvr') }),
    Buffer.concat([Buffer.from([2, 1, 1, 0, 0, 0, 0, 3]), Buffer.from([1, 2, 3])]),
  );
  t.same(stream.push(packet), { detections: [], errors: [], ignored: 1 });
});

t.test('broken packets are errors and the stream carries on', async (t) => {
  const stream = new VendorBStream(context);
  stream.push(encodePacket(act('add'), add));
  const good = encodePacket(act('update'), platePatch);
  const badZlib = joinFrames(encodeFrame(FRAME_ACTION, { payload: act('update') }), Buffer.from([2, 1, 1, 0, 0, 0, 0, 4, 0x78, 0x9c, 0xff, 0xff]));
  for (const bad of [
    good.subarray(0, 6),
    good.subarray(0, good.length - 2),
    badZlib,
    encodePacket(act('update'), 'a string, not an object'),
    encodePacket({ action: 'add', modelKey: 'event' } as never, add),
  ]) {
    const out = stream.push(bad);
    t.equal(out.errors.length, 1, out.errors[0]?.reason ?? 'error expected');
    t.equal(out.detections.length, 0);
  }
  stream.push(good);
  t.equal(stream.push(encodePacket(act('update'), endPatch)).detections.length, 1, 'the event survived the noise');
});

t.test('an update that breaks the event type-wise is one error, then the event is dropped', async (t) => {
  const stream = new VendorBStream(context);
  stream.push(encodePacket(act('add'), add));
  const out = stream.push(encodePacket(act('update'), { metadata: { detectedThumbnails: 'none' } }));
  t.equal(out.errors.length, 1);
  t.same(stream.push(encodePacket(act('update'), endPatch)).ignored, 1);
});

t.test('flush emits events with plate text that never ended; plate-less ones count ignored', async (t) => {
  const stream = new VendorBStream(context);
  stream.push(encodePacket(act('add'), add));
  stream.push(encodePacket(act('update'), platePatch));
  stream.push(encodePacket(act('add', 'other'), { ...(add as object), id: 'other' }));
  const out = stream.flush();
  t.same(
    out.detections.map((d) => d.detection.plate.text),
    ['LM34NOP'],
  );
  t.equal(out.ignored, 1);
  t.equal(stream.push(encodePacket(act('update'), endPatch)).ignored, 1, 'flushed events are finished');
});

t.test('Integration API JSON text messages in the same stream', async (t) => {
  const stream = new VendorBStream(context);
  t.same(stream.push(Buffer.from(fixtureText('integration-add.json'))).detections, []);
  const end = Buffer.from(fixtureText('integration-update-end.json'));
  const out = stream.push(end);
  t.same(
    out.detections.map((d) => [d.detection.plate.text, d.detection.camera.id]),
    [['GH56IJK', '89abcdef0123456789abcdef']],
  );
  t.equal(stream.push(end).ignored, 1, 'the same end update repeated');
  t.equal(stream.push(Buffer.from('{"type":"add"}')).errors.length, 1);
  t.equal(stream.push(Buffer.from('{not json')).errors.length, 1);
});

t.test(`remembers at most ${MAX_REMEMBERED_EVENTS} events, oldest settled first`, async (t) => {
  const stream = new VendorBStream(context);
  const first = { ...(add as object), ...(platePatch as object), id: 'first' };
  stream.push(encodePacket(act('add', 'first'), first, { deflate: false }));
  let evicted = 0;
  for (let i = 0; i < MAX_REMEMBERED_EVENTS; i += 1) {
    const id = `e${i}`;
    const out = stream.push(encodePacket(act('add', id), { ...(add as object), id }, { deflate: false }));
    evicted += out.detections.length;
    if (out.detections.length > 0) t.equal(out.detections[0]?.detection.detection_id, 'first', 'oldest goes first');
  }
  t.equal(evicted, 1, 'the evicted event had a plate, so it was emitted rather than lost');
  t.equal(stream.size, MAX_REMEMBERED_EVENTS);
  t.equal(stream.push(encodePacket(act('update', 'first'), endPatch)).ignored, 1);
});

t.test('mergePatch merges objects, replaces arrays, ignores __proto__, stops at depth', async (t) => {
  t.same(mergePatch({ a: { b: 1, c: [1] } }, { a: { c: [2] }, d: 1 }), { a: { b: 1, c: [2] }, d: 1 });
  const polluted = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(Object.getPrototypeOf(polluted), Object.prototype);
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 50_000; i += 1) deep = { n: deep };
  t.doesNotThrow(() => mergePatch(deep, deep), 'deep patches do not overflow the stack');
});
