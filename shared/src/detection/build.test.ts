import t from 'tap';
import { buildDetection } from './build.ts';
import type { DetectionDraft } from './build.ts';
import { derivedDetectionId } from './ids.ts';
import { detectionSchema } from './schema.ts';

const base: DetectionDraft = {
  vendor: 'vendor_a',
  sourceId: '4f2c0a1e-1111-4222-8333-444455556666',
  timestamp: new Date('2023-08-11T12:49:00.000Z'),
  cameraId: 'gate-1',
  cameraMac: 'AA:BB:CC:DD:EE:FF',
  plateText: 'ab 123-cd',
  confidence: 0.9,
  region: 'DE',
  direction: 'entering',
  vehicleType: 'car',
  color: 'white',
  brand: 1000,
  model: 'unknown',
};

t.test('a full draft becomes a schema-valid detection', async (t) => {
  const result = buildDetection(base);
  if (result.kind !== 'detection') throw new Error(`expected a detection, got ${JSON.stringify(result)}`);
  t.same(result.detection, {
    detection_id: '4f2c0a1e-1111-4222-8333-444455556666',
    timestamp: '2023-08-11T12:49:00.000Z',
    camera: { id: 'gate-1', mac: 'aabbccddeeff' },
    plate: { text: 'AB123CD', confidence: 0.9, region: 'DE' },
    vehicle: { direction: 'entering', vehicle_type: 'car', color: 'white', brand: '1000' },
  });
  t.ok(detectionSchema.safeParse(result.detection).success);
  t.notOk('model' in (result.detection.vehicle ?? {}), 'unknown model is left out, not sent as "unknown"');
});

t.test('no plate is not an error', async (t) => {
  for (const plateText of ['unknown', '', ' - ', undefined]) {
    t.same(buildDetection({ ...base, plateText }), { kind: 'no_plate' }, String(plateText));
  }
  t.same(buildDetection({ ...base, plateText: 'unknown', timestamp: undefined }), { kind: 'no_plate' }, 'no plate wins over a bad time');
});

t.test('invalid drafts say why', async (t) => {
  const cases: Array<[Partial<DetectionDraft>, RegExp]> = [
    [{ timestamp: undefined }, /timestamp/],
    [{ timestamp: new Date('nope') }, /timestamp/],
    [{ cameraMac: undefined }, /MAC/],
    [{ cameraMac: 'zz:bb:cc:dd:ee:ff' }, /MAC/],
    [{ confidence: 1.5 }, /^plate\.confidence/],
    [{ confidence: -0.1 }, /^plate\.confidence/],
    [{ sourceId: 'x'.repeat(129) }, /^detection_id/],
    [{ cameraId: 'c'.repeat(101) }, /^camera\.id/],
  ];
  for (const [patch, reason] of cases) {
    const result = buildDetection({ ...base, ...patch });
    t.equal(result.kind, 'invalid', JSON.stringify(patch).slice(0, 60));
    if (result.kind === 'invalid') t.match(result.reason, reason);
  }
});

t.test('defaults: camera id from MAC, confidence 0, direction unknown', async (t) => {
  const result = buildDetection({
    vendor: 'vendor_a',
    timestamp: new Date('2023-08-11T12:49:00Z'),
    cameraId: '  ',
    cameraMac: '7CD8B328641B',
    plateText: 'XY12ABC',
    confidence: undefined,
  });
  if (result.kind !== 'detection') throw new Error(JSON.stringify(result));
  t.equal(result.detection.camera.id, '7cd8b328641b', 'blank camera id falls back to the MAC');
  t.equal(result.detection.plate.confidence, 0, 'vendor_a pull has no confidence');
  t.notOk('region' in result.detection.plate);
  t.same(result.detection.vehicle, { direction: 'unknown' });
});

t.test('derived detection id when the payload carries none', async (t) => {
  const draft = { ...base, sourceId: undefined, cameraMac: 'aa-bb-cc-dd-ee-ff', plateText: 'AB-123-CD' };
  const first = buildDetection(draft);
  const again = buildDetection({ ...draft, cameraMac: 'AABBCCDDEEFF', plateText: 'ab123cd' });
  if (first.kind !== 'detection' || again.kind !== 'detection') throw new Error('expected detections');
  t.equal(
    first.detection.detection_id,
    derivedDetectionId('vendor_a', 'aabbccddeeff', '2023-08-11T12:49:00.000Z', 'AB123CD'),
    'built from vendor, normalized MAC, UTC time and normalized plate',
  );
  t.equal(again.detection.detection_id, first.detection.detection_id, 'formatting differences do not change the id');
  const other = buildDetection({ ...draft, timestamp: new Date('2023-08-11T12:49:00.001Z') });
  if (other.kind !== 'detection') throw new Error('expected a detection');
  t.not(other.detection.detection_id, first.detection.detection_id, 'a different read gets a different id');
  const blank = buildDetection({ ...draft, sourceId: '   ' });
  if (blank.kind !== 'detection') throw new Error('expected a detection');
  t.equal(blank.detection.detection_id, first.detection.detection_id, 'blank source id counts as none');
});
