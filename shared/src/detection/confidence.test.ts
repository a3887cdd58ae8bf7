import t from 'tap';
import { vendorA } from '../adapters/vendor-a/index.ts';
import { CONFIDENCE_NOT_REPORTED, confidenceWords, reportedConfidence } from './confidence.ts';

t.test('a confidence in words: 0 is not reported, never 0 %', async (t) => {
  const cases: [number | null | undefined, number | null, string][] = [
    [0.93, 0.93, '93 %'],
    [1, 1, '100 %'],
    [0.004, 0.004, '0 %'],
    [CONFIDENCE_NOT_REPORTED, null, 'not reported'],
    [null, null, 'not reported'],
    [undefined, null, 'not reported'],
    [Number.NaN, null, 'not reported'],
  ];
  for (const [value, reported, words] of cases) {
    t.equal(reportedConfidence(value), reported, `${value}: reported`);
    t.equal(confidenceWords(value), words, `${value}: words`);
  }
});

t.test("vendor_a's pull list carries no confidence: its reads are sent as not reported", async (t) => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><Plates><Plate><captureTime>2026-11-28T12:00:00Z</captureTime><plateNumber>GA7E01</plateNumber><picName>202611281200000000001</picName><direction>forward</direction></Plate></Plates>`;
  const outcome = vendorA.parse(
    { body: new TextEncoder().encode(xml), contentType: 'application/xml' },
    { timezone: 'UTC', camera: { id: 'gate-a', mac: '0a0b0c0d0e0f' } },
  );
  t.equal(outcome.detections.length, 1, outcome.errors.map((e) => e.reason).join('; '));
  const confidence = outcome.detections[0]?.detection.plate.confidence;
  t.equal(confidence, CONFIDENCE_NOT_REPORTED);
  t.equal(confidenceWords(confidence), 'not reported', 'shown as not reported, not 0 %');
});
