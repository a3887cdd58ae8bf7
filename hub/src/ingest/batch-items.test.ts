import t from 'tap';
import { prepareItems } from './batch-items.ts';
import { sha256Hex } from '../images/image-store.ts';
import { jpegLike, sampleDetection } from './uploads.test-helper.ts';

const DAY_MS = 86_400_000;
const window = { now: new Date(), maxAheadMs: DAY_MS };

t.test('a valid item with images becomes ready with checked hashes', async (t) => {
  const full = jpegLike(3000);
  const crop = jpegLike(500);
  const detection = sampleDetection({
    images: {
      full_scene: { part: 'f', sha256: sha256Hex(full), size: full.length },
      plate_crop: { part: 'c', sha256: sha256Hex(crop), size: crop.length },
    },
  });
  const [verdict] = prepareItems(
    [detection],
    new Map([
      ['f', full],
      ['c', crop],
    ]),
    window,
  );
  if (!verdict?.ok) throw new Error(`expected ready, got ${JSON.stringify(verdict)}`);
  t.equal(verdict.ready.fullScene?.sha256, sha256Hex(full));
  t.equal(verdict.ready.plateCrop?.size, crop.length);
  t.equal(verdict.ready.capturedAt.toISOString(), detection.timestamp);
});

t.test('each kind of bad item is rejected with a reason, the others proceed', async (t) => {
  const img = jpegLike(1000);
  const good = sampleDetection();
  const cases: [unknown, RegExp][] = [
    [{ ...sampleDetection(), plate: { text: 'ab 12', confidence: 0.5 } }, /^plate\.text: /],
    [{ ...sampleDetection(), plate: { text: 'A'.repeat(21), confidence: 0.5 } }, /longer than 20/],
    [{ ...sampleDetection(), timestamp: '2026-02-30T10:00:00.000Z' }, /^timestamp: not a real date/],
    [{ ...sampleDetection(), timestamp: '1969-12-31T23:59:59.000Z' }, /^timestamp: before 1970/],
    [{ ...sampleDetection(), detection_id: 'bad\u0000id' }, /^detection_id: contains a NUL/],
    [{ ...sampleDetection(), vehicle: { color: 'x\ud800' } }, /^vehicle\.color: /],
    [sampleDetection({ images: { full_scene: { part: 'nope', sha256: sha256Hex(img), size: img.length } } }), /part nope is missing/],
    [sampleDetection({ images: { full_scene: { part: 'i', sha256: sha256Hex(img), size: img.length + 1 } } }), /bytes, \d+ declared/],
    [
      sampleDetection({ images: { plate_crop: { part: 'i', sha256: 'a'.repeat(64), size: img.length } } }),
      /^images\.plate_crop: part i does not match its declared sha256/,
    ],
    ['not an object', /./],
  ];
  const verdicts = prepareItems([good, ...cases.map(([item]) => item)], new Map([['i', img]]), window);
  t.equal(verdicts[0]?.ok, true, 'the valid item is not affected');
  cases.forEach(([item, reason], k) => {
    const verdict = verdicts[k + 1];
    if (!verdict || verdict.ok) throw new Error(`case ${k} should be rejected`);
    t.equal(verdict.result.status, 'rejected');
    t.equal(verdict.result.index, k + 1);
    t.match(verdict.result.reason ?? '', reason, `case ${k}: ${verdict.result.reason}`);
    const id = typeof item === 'object' && item !== null ? (item as { detection_id?: unknown }).detection_id : null;
    t.equal(verdict.result.detection_id, id, 'reports the detection id it was given');
  });
});

t.test('capture times further ahead of the hub clock than the margin are rejected, per item', async (t) => {
  const now = new Date('2026-11-24T03:00:00.000Z');
  const at = (offsetMs: number) => sampleDetection({ timestamp: new Date(now.getTime() + offsetMs).toISOString() });
  const items = [
    at(-30 * DAY_MS), // a late upload: fine
    at(DAY_MS), // exactly the margin: accepted
    at(DAY_MS + 1), // one millisecond over
    at(31 * DAY_MS), // a month ahead
    sampleDetection({ timestamp: '2100-01-01T00:00:00.000Z' }),
    sampleDetection({ timestamp: '9999-12-31T23:59:59.999Z' }),
  ];
  const verdicts = prepareItems(items, new Map(), { now, maxAheadMs: DAY_MS });
  t.same(
    verdicts.map((v) => v.ok),
    [true, true, false, false, false, false],
  );
  for (const v of verdicts) {
    if (!v.ok) t.match(v.result.reason, /^timestamp: more than 24 h ahead of the hub's clock \(2026-11-24T03:00:00.000Z\)$/);
  }
  const tight = prepareItems([at(61_000)], new Map(), { now, maxAheadMs: 60_000 });
  t.match(tight[0]?.ok === false ? tight[0].result.reason : '', /more than 1 min ahead/, 'the margin is configurable');
});
