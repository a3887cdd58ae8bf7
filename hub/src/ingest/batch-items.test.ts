import t from 'tap';
import { prepareItems } from './batch-items.ts';
import { sha256Hex } from './image-store.ts';
import { jpegLike, sampleDetection } from './test-support.ts';

t.test('a valid item with images becomes ready with checked hashes', async (t) => {
  const full = jpegLike(3000);
  const crop = jpegLike(500);
  const detection = sampleDetection({
    images: {
      full_scene: { part: 'f', sha256: sha256Hex(full), size: full.length },
      plate_crop: { part: 'c', sha256: sha256Hex(crop), size: crop.length },
    },
  });
  const [verdict] = prepareItems([detection], new Map([['f', full], ['c', crop]]));
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
    [sampleDetection({ images: { plate_crop: { part: 'i', sha256: 'a'.repeat(64), size: img.length } } }), /^images\.plate_crop: part i does not match its declared sha256/],
    ['not an object', /./],
  ];
  const verdicts = prepareItems([good, ...cases.map(([item]) => item)], new Map([['i', img]]));
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
