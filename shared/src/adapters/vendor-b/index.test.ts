import t from 'tap';
import { randomBytes } from 'node:crypto';
import type { ParseInput, ParseOutcome } from '../types.ts';
import { vendorB } from './index.ts';
import { encodeFrame, encodePacket, FRAME_ACTION, joinFrames } from './packet-encoder.ts';
import { hostileVendorBInputs, zipBombPacket } from './hostile-cases.test-helper.ts';
import { context, fixtureJson, fixtureText } from './fixtures.test-helper.ts';

const body = (text: string | Uint8Array): ParseInput => ({ body: typeof text === 'string' ? Buffer.from(text) : text });
const mixedText = fixtureText('events-list-mixed.json');
const add = fixtureJson('event-in-progress-add.json') as Record<string, unknown>;
const platePatch = fixtureJson('event-update-plate.json') as Record<string, unknown>;

t.test('recognizes: event JSON shapes, packets and vendor headers; not other payloads', async (t) => {
  const yes: ParseInput[] = [
    body(mixedText),
    body(JSON.stringify({ events: JSON.parse(mixedText) })),
    body(JSON.stringify(add)),
    body(fixtureText('integration-add.json')),
    body(encodePacket({ action: 'add', modelKey: 'event', id: 'x' }, add)),
    body(encodePacket({ action: 'update', modelKey: 'camera', id: 'x' }, {}, { deflate: false })),
    { body: Buffer.from('anything'), headers: { 'x-protect-event': 'smartDetectZone' } },
    { body: Buffer.from(''), headers: { 'x-unifi-console': 'udm' } },
  ];
  for (const input of yes) t.equal(vendorB.recognizes(input), true, String(input.body.subarray(0, 40)));
  const no: ParseInput[] = [
    body('<EventNotificationAlert version="2.0"><eventType>ANPR</eventType></EventNotificationAlert>'),
    body('[]'),
    body('{"hello":"world"}'),
    body('[1,2,3]'),
    body('{"metadata":{}}'),
    body(''),
    body(randomBytes(4096)),
    body(encodePacket({ action: 'add', modelKey: 'event', id: 'x' }, add).subarray(0, 30)),
    { body: Buffer.from('{}'), headers: { 'content-type': 'application/json', 'x-forwarded-for': '1.2.3.4' } },
  ];
  for (const input of no) t.equal(vendorB.recognizes(input), false, String(input.body.subarray(0, 40)));
});

t.test('parse: the pull list with its cursor', async (t) => {
  const out = vendorB.parse(body(mixedText), context);
  t.same(
    out.detections.map((d) => d.detection.plate.text),
    ['XY12ABC', 'AB123CD'],
  );
  t.equal(out.cursor, '1900000250000');
  const wrapped = vendorB.parse(body(JSON.stringify({ events: JSON.parse(mixedText) })), context);
  t.same(
    wrapped.detections.map((d) => d.detection.detection_id),
    out.detections.map((d) => d.detection.detection_id),
  );
});

t.test('parse: a single pushed event is emitted even while in progress', async (t) => {
  const open = vendorB.parse(body(JSON.stringify({ ...add, ...platePatch })), context);
  t.same(
    open.detections.map((d) => d.detection.plate.text),
    ['LM34NOP'],
  );
  t.equal(open.cursor, undefined);
  t.same(vendorB.parse(body(JSON.stringify(add)), context), { detections: [], errors: [], ignored: 1 });
  const broken = vendorB.parse(body(JSON.stringify({ ...add, metadata: 'x' })), context);
  t.equal(broken.errors.length, 1);
});

t.test('parse: one binary packet or Integration message, statelessly', async (t) => {
  const packet = encodePacket({ action: 'add', modelKey: 'event', id: add.id as string }, { ...add, ...platePatch });
  t.same(
    vendorB.parse(body(packet), context).detections.map((d) => d.detection.plate.text),
    ['LM34NOP'],
  );
  const update = encodePacket({ action: 'update', modelKey: 'event', id: add.id as string }, { end: 5 });
  t.same(vendorB.parse(body(update), context), { detections: [], errors: [], ignored: 1 });
  const integration = vendorB.parse(body(fixtureText('integration-add.json')), context);
  t.same(
    integration.detections.map((d) => d.detection.plate.text),
    ['GH56IJK'],
  );
  const badZlib = joinFrames(
    encodeFrame(FRAME_ACTION, { payload: { action: 'add', modelKey: 'event', id: 'z' } }),
    Buffer.from([2, 1, 1, 0, 0, 0, 0, 2, 0x78, 0x9c]),
  );
  t.equal(vendorB.parse(body(badZlib), context).errors.length, 1);
});

t.test('parse: whole-payload failures', async (t) => {
  for (const text of ['', 'not json at all', '{"a":', '42', '"string"', 'null', '{"hello":"world"}']) {
    const out = vendorB.parse(body(text), context);
    t.type(out.failure, 'string', JSON.stringify(text));
    t.same(out.detections, []);
  }
  const truncated = encodePacket({ action: 'add', modelKey: 'event', id: 'x' }, add).subarray(0, 20);
  t.match(vendorB.parse(body(truncated), context).failure, /packet/);
});

// How long each hostile input takes is measured by `npm run bench`
// (scripts/bench/adapter-hostile.ts), not asserted here: tests never assert wall-clock time.
t.test('hostile inputs: reported, never thrown', async (t) => {
  const cases = hostileVendorBInputs();
  const { packet: bombView, wireBytes } = zipBombPacket();
  for (const [name, bytes] of cases) {
    let out: ParseOutcome | undefined;
    t.doesNotThrow(() => {
      vendorB.recognizes({ body: bytes });
      out = vendorB.parse({ body: bytes }, context);
    }, name);
    t.same(out?.detections, [], name);
    t.ok(out?.failure !== undefined || (out?.errors.length ?? 0) + (out?.ignored ?? 0) > 0, `${name} is reported`);
  }
  const stream = vendorB.openStream?.(context);
  for (const [name, bytes] of cases) t.doesNotThrow(() => stream?.push(bytes), `stream: ${name}`);
  t.ok(wireBytes < 100_000, 'the bomb is small on the wire');
  const bombOut = vendorB.parse({ body: bombView }, context);
  t.match(bombOut.errors[0]?.reason, /1 MiB/);
});
