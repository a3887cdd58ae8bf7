import t from 'tap';
import { bestThumbnail, evaluateEvent } from './event.ts';
import type { Thumbnail } from './event-schema.ts';
import { CAMERA_A, context, fixtureJson } from './fixtures.test-helper.ts';

const list = fixtureJson('events-list-mixed.json') as Record<string, unknown>[];
const lpr6 = list[0] as Record<string, unknown>;

const base = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'aa23456789abcdef01234567',
  type: 'smartDetectZone',
  start: 1900000000000,
  end: 1900000010000,
  camera: CAMERA_A,
  smartDetectTypes: ['vehicle', 'licensePlate'],
  ...over,
});
const thumbs = (...detectedThumbnails: Record<string, unknown>[]): Record<string, unknown> => ({
  metadata: { detectedThumbnails },
});

t.test('Protect 6.x shape: matchedName, group confidence, best frame time, attributes', async (t) => {
  const v = evaluateEvent(lpr6, context);
  if (v.kind !== 'detection') throw new Error(`expected detection, got ${JSON.stringify(v)}`);
  t.equal(v.ended, true);
  t.same(v.parsed.detection, {
    detection_id: '0123456789abcdef01234567',
    timestamp: new Date(1900000004000).toISOString(),
    camera: { id: CAMERA_A, mac: '7cd8b328641b' },
    plate: { text: 'XY12ABC', confidence: 0.87 },
    vehicle: { direction: 'unknown', vehicle_type: 'car', color: 'white' },
  });
  t.same(v.parsed.fetchImages, [{ kind: 'full_scene', path: '/proxy/protect/api/events/0123456789abcdef01234567/thumbnail' }]);
  t.equal(v.parsed.raw?.plate_source, 'group.matchedName');
});

t.test('plate falls back to the thumbnail name, confidence to the thumbnail score', async (t) => {
  const v = evaluateEvent(base(thumbs({ type: 'vehicle', name: 'ab 12-cd', confidence: 64, clockBestWall: 1900000002000 })), context);
  if (v.kind !== 'detection') throw new Error('expected detection');
  t.equal(v.parsed.detection.plate.text, 'AB12CD');
  t.equal(v.parsed.detection.plate.confidence, 0.64);
  t.equal(v.parsed.raw?.plate_source, 'name');
});

t.test('best thumbnail: plate first, then confidence, then later clockBestWall', async (t) => {
  const noPlate: Thumbnail = { type: 'vehicle', name: '', confidence: 99, clockBestWall: 5 };
  const low: Thumbnail = { type: 'vehicle', name: 'LOW1', confidence: 50, clockBestWall: 9 };
  const high: Thumbnail = { type: 'licensePlate', name: 'HIGH1', confidence: 80, clockBestWall: 1 };
  const highLater: Thumbnail = { type: 'vehicle', name: 'LATER1', confidence: 80, clockBestWall: 2 };
  const person: Thumbnail = { type: 'person', name: 'PERSON1', confidence: 100, clockBestWall: 100 };
  t.equal(bestThumbnail([noPlate, low]), low);
  t.equal(bestThumbnail([low, high, noPlate]), high);
  t.equal(bestThumbnail([high, highLater, person]), highLater);
  t.equal(bestThumbnail([person]), undefined);
});

t.test('legacy metadata.licensePlate shape', async (t) => {
  const v = evaluateEvent(list[1], context);
  if (v.kind !== 'detection') throw new Error('expected detection');
  t.equal(v.parsed.detection.plate.text, 'AB123CD');
  t.equal(v.parsed.detection.plate.confidence, 0.78);
  t.equal(v.parsed.detection.timestamp, new Date(1900000100000).toISOString(), 'no thumbnail: event start');
  t.same(v.parsed.detection.camera, { id: '99abcdef0123456789abcdef', mac: '7cd8b3286420' }, 'camera from cameraId');
});

t.test('licensePlate detected but no readable text is no_plate; non-smart types are not candidates', async (t) => {
  t.same(evaluateEvent(list[4], context), { kind: 'no_plate', ended: true });
  t.same(evaluateEvent(base({ metadata: { licensePlate: { name: 'unknown', confidenceLevel: 0 } } }), context), {
    kind: 'no_plate',
    ended: true,
  });
  t.same(evaluateEvent(list[2], context), { kind: 'not_candidate' });
  t.same(evaluateEvent(list[3], context), { kind: 'not_candidate' });
  const untyped = base({ type: undefined, ...thumbs({ type: 'vehicle', name: 'UN1' }) });
  t.equal(evaluateEvent(untyped, context).kind, 'detection', 'no type but smartDetectTypes has licensePlate');
  t.same(evaluateEvent({ ...untyped, smartDetectTypes: ['vehicle'] }, context), { kind: 'not_candidate' });
});

t.test('camera MAC: bootstrap map, single configured camera, or an error', async (t) => {
  const ev = base({ camera: undefined, device: 'dev-1', ...thumbs({ type: 'vehicle', name: 'DV1' }) });
  const single = evaluateEvent(ev, { camera: { mac: 'AA:BB:CC:DD:EE:FF' } });
  if (single.kind !== 'detection') throw new Error('expected detection');
  t.same(single.parsed.detection.camera, { id: 'dev-1', mac: 'aabbccddeeff' });
  const pinnedElsewhere = evaluateEvent(ev, { camera: { id: 'other', mac: 'AABBCCDDEEFF' } });
  t.equal(pinnedElsewhere.kind, 'error', 'a camera pinned to another id lends no MAC');
  const none = evaluateEvent(ev, context);
  t.equal(none.kind, 'error');
  t.match(none, { reason: /MAC/ });
});

t.test('direction, missing id and unsafe ids', async (t) => {
  const plate = thumbs({ type: 'vehicle', name: 'DIR1' });
  const dir = evaluateEvent(base({ metadata: { ...(plate.metadata as object), direction: 'in' } }), context);
  if (dir.kind !== 'detection') throw new Error('expected detection');
  t.equal(dir.parsed.detection.vehicle?.direction, 'entering');
  const objDir = evaluateEvent(base({ metadata: { ...(plate.metadata as object), direction: { x: 1 } } }), context);
  if (objDir.kind !== 'detection') throw new Error('expected detection');
  t.equal(objDir.parsed.detection.vehicle?.direction, 'unknown');

  const noId = evaluateEvent(base({ id: undefined, thumbnail: 'e-bb23456789abcdef01234567', ...plate }), context);
  if (noId.kind !== 'detection') throw new Error('expected detection');
  t.equal(noId.parsed.detection.detection_id, 'bb23456789abcdef01234567');
  t.same(noId.parsed.fetchImages, [{ kind: 'full_scene', path: '/proxy/protect/api/events/bb23456789abcdef01234567/thumbnail' }]);
  const traversal = evaluateEvent(base({ id: '../../api/users', ...plate }), context);
  if (traversal.kind !== 'detection') throw new Error('expected detection');
  t.same(traversal.parsed.fetchImages, [], 'an id that is not a safe path segment fetches nothing');
});

t.test('in progress is reported, confidence out of range falls through', async (t) => {
  const open = evaluateEvent(
    base({ end: null, ...thumbs({ type: 'vehicle', name: 'OP1', confidence: 250, group: { matchedName: 'OP1', confidence: 140 } }) }),
    context,
  );
  if (open.kind !== 'detection') throw new Error('expected detection');
  t.equal(open.ended, false);
  t.equal(open.parsed.detection.plate.confidence, 0, 'no usable confidence');
});

t.test('wrong JSON types are errors, not throws', async (t) => {
  for (const bad of [
    base({ metadata: 'plate' }),
    base({ start: { ms: 1 } }),
    base({ smartDetectTypes: 'licensePlate' }),
    base(thumbs({ type: 'vehicle', name: 12345 })),
    base({ metadata: { detectedThumbnails: [[[['deep']]]] } }),
    'not an object',
    null,
  ]) {
    t.equal(evaluateEvent(bad, context).kind, 'error', JSON.stringify(bad));
  }
});
