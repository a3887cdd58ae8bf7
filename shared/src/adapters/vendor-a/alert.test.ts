import { readFileSync } from 'node:fs';
import t from 'tap';
import { only, parseFixture, parseText } from './fixtures.test-helper.ts';

const text = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('hikvision namespace, full ANPR block', async (t) => {
  const outcome = parseFixture('alert-hikvision-ns.xml');
  t.same({ errors: outcome.errors, ignored: outcome.ignored, failure: outcome.failure }, { errors: [], ignored: 0, failure: undefined });
  const parsed = only(outcome);
  t.same(parsed.detection, {
    detection_id: 'example-uuid-0001',
    timestamp: '2030-01-02T02:04:05.000Z',
    camera: { id: '001122aabbcc-ch1', mac: '001122aabbcc' },
    plate: { text: 'XY12345', confidence: 0.9 },
    vehicle: { direction: 'entering', vehicle_type: 'car', color: 'white' },
  });
  t.same(parsed.images, {}, 'pictureInfo names a picture that a plain XML post does not carry');
  t.same(parsed.fetchImages, []);
  t.equal(parsed.raw?.brandCode, '1000', 'an unknown make code is kept raw, not as a brand');
  t.equal(parsed.raw?.modelCode, '12');
  t.equal(parsed.raw?.vehicleType, 'SUVMPV');
});

t.test('isapi namespace without UUID: derived, stable id; MAC with dashes; Z offset', async (t) => {
  const first = only(parseFixture('alert-isapi-ns.xml'));
  t.match(first.detection.detection_id, UUID);
  t.equal(only(parseFixture('alert-isapi-ns.xml')).detection.detection_id, first.detection.detection_id);
  t.same(first.detection, {
    detection_id: first.detection.detection_id,
    timestamp: '2030-06-15T12:00:00.000Z',
    camera: { id: '001122aabbdd-ch2', mac: '001122aabbdd' },
    plate: { text: 'AB123CD', confidence: 0.75 },
    vehicle: { direction: 'exiting', vehicle_type: 'car', color: 'gray', brand: 'Toyota' },
  });
});

t.test('no namespace, no declaration, local time read in the camera zone', async (t) => {
  const berlin = only(parseFixture('alert-no-ns-no-decl.xml', { timezone: 'Europe/Berlin' }));
  t.equal(berlin.detection.timestamp, '2030-07-01T08:00:00.000Z', 'CEST is UTC+2');
  t.equal(only(parseFixture('alert-no-ns-no-decl.xml')).detection.timestamp, '2030-07-01T10:00:00.000Z', 'no zone: UTC');
  t.same(berlin.detection.plate, { text: 'KL9876', confidence: 0.88 });
  t.same(berlin.detection.vehicle, { direction: 'unknown', vehicle_type: 'bus' });
});

t.test('the offset in the payload wins over the configured zone', async (t) => {
  const parsed = only(parseFixture('alert-hikvision-ns.xml', { timezone: 'America/New_York' }));
  t.equal(parsed.detection.timestamp, '2030-01-02T02:04:05.000Z');
});

t.test('ITS sample: colour prefix, both vehicleType fields, milliseconds', async (t) => {
  const parsed = only(parseFixture('alert-its-cjk.xml'));
  t.same(parsed.detection, {
    detection_id: 'its-0000-example',
    timestamp: '2030-01-02T10:48:03.847Z',
    camera: { id: '001122aabbff-ch1', mac: '001122aabbff' },
    plate: { text: '京A12345', confidence: 0.97 },
    vehicle: { direction: 'entering', vehicle_type: 'bus', brand: 'Mercedes-Benz' },
  });
  t.equal(parsed.raw?.plate, '蓝京A12345');
  t.equal(parsed.raw?.plateColor, 'blue');
  t.equal(parsed.raw?.vehicleType, 'largeBus', 'ANPR/vehicleType, not vehicleInfo/vehicleType (2)');
});

t.test('configured camera id and direction mapping apply', async (t) => {
  const parsed = only(
    parseFixture('alert-its-cjk.xml', {
      camera: { id: 'lane-1', mac: 'aa:aa:aa:aa:aa:aa' },
      directionMapping: { forward: 'exiting', reverse: 'entering' },
    }),
  );
  t.same(parsed.detection.camera, { id: 'lane-1', mac: '001122aabbff' }, 'payload MAC wins, configured id wins');
  t.equal(parsed.detection.vehicle?.direction, 'exiting');
});

t.test('unknown plate and non-ANPR events are ignored, not errors', async (t) => {
  for (const name of ['alert-unknown-plate.xml', 'alert-vmd.xml']) {
    const outcome = parseFixture(name);
    t.same(outcome, { detections: [], errors: [], ignored: 1 }, name);
  }
});

t.test('eventState inactive is ignored', async (t) => {
  const xml = text('alert-hikvision-ns.xml').replace('<eventState>active</eventState>', '<eventState>inactive</eventState>');
  t.same(parseText(xml), { detections: [], errors: [], ignored: 1 });
});

t.test('broken ANPR alerts are error entries', async (t) => {
  const base = text('alert-hikvision-ns.xml');
  const cases: [string, string, RegExp][] = [
    ['bad date', base.replace('2030-01-02T03:04:05+01:00', '2030-13-45T99:00:00'), /dateTime/],
    ['missing date', base.replace(/<dateTime>.*<\/dateTime>/, ''), /dateTime \(absent\)/],
    ['date as element', base.replace(/<dateTime>.*<\/dateTime>/, '<dateTime><y>2030</y></dateTime>'), /dateTime/],
    ['missing plate', base.replace(/<licensePlate>.*<\/licensePlate>/, ''), /licensePlate/],
    ['plate as element', base.replace(/<licensePlate>.*<\/licensePlate>/, '<licensePlate><a>X</a></licensePlate>'), /licensePlate/],
    ['no ANPR block', base.replace(/<ANPR>[\s\S]*<\/ANPR>/, ''), /ANPR/],
    ['ANPR is text', base.replace(/<ANPR>[\s\S]*<\/ANPR>/, '<ANPR>XY12345</ANPR>'), /ANPR/],
    ['no eventType', base.replace(/<eventType>.*<\/eventType>/, ''), /eventType/],
    ['no MAC anywhere', base.replace(/<macAddress>.*<\/macAddress>/, ''), /MAC/],
  ];
  for (const [label, xml, reason] of cases) {
    const outcome = parseText(xml);
    t.equal(outcome.detections.length, 0, label);
    t.equal(outcome.failure, undefined, label);
    t.equal(outcome.errors.length, 1, label);
    t.match(outcome.errors[0]?.reason, reason, label);
  }
});

t.test('missing or malformed optional fields degrade, they do not reject', async (t) => {
  const base = text('alert-hikvision-ns.xml');
  const noMac = base.replace(/<macAddress>.*<\/macAddress>/, '<macAddress>zz:11</macAddress>');
  const fromConfig = only(parseText(noMac, { camera: { mac: '00:11:22:33:44:55' } }));
  t.same(fromConfig.detection.camera, { id: '001122334455-ch1', mac: '001122334455' }, 'configured MAC is the fallback');
  const junk = base
    .replace('<confidenceLevel>90</confidenceLevel>', '<confidenceLevel>lots</confidenceLevel>')
    .replace('<direction>forward</direction>', '<direction>sideways</direction>')
    .replace('<vehicleType>SUVMPV</vehicleType>', '<vehicleType>hovercraft</vehicleType>')
    .replace(/<vehicleInfo>[\s\S]*<\/vehicleInfo>/, '<vehicleInfo>none</vehicleInfo>');
  const parsed = only(parseText(junk));
  t.equal(parsed.detection.plate.confidence, 0);
  t.same(parsed.detection.vehicle, { direction: 'unknown' });
});

t.test('a textual country becomes the region; a numeric index does not', async (t) => {
  const base = text('alert-hikvision-ns.xml');
  t.equal(only(parseText(base.replace('<country>3</country>', '<country>GBR</country>'))).detection.plate.region, 'GBR');
  t.equal(only(parseText(base)).detection.plate.region, undefined);
});
