import jpeg from 'jpeg-js';
import t from 'tap';
import { compactLocal, isoLocal, localDigits } from './local-time.ts';
import { createReadGenerator, createRng, jpegBytes, normalizedPlate, plateText } from './plates.ts';
import { nextPicName, parseCursor, picTimeOf } from './vendor-a-store.ts';

t.test('the generator replays from its seed and shows the vendor_a quirks', async (t) => {
  const run = (): string[] => {
    // Plates only: street scenes (20-35 ms each to encode) are not drawn for them.
    const g = createReadGenerator({ seed: 7, cropBytes: 100, sceneBytes: 200, scenes: 'plate' });
    return Array.from({ length: 50 }, (_, i) => g.next(1_900_000_000_000 + i * 1000).plate);
  };
  t.same(run(), run(), 'same seed, same plates');
  const images = (): Buffer[] => {
    const g = createReadGenerator({ seed: 7 });
    return Array.from({ length: 3 }, (_, i) => g.next(1_900_000_000_000 + i * 1000)).flatMap((r) => [r.crop, r.scene]);
  };
  t.same(images(), images(), 'and the same image bytes');

  // Sizes above the drawn pictures' (a crop is 4-6 kB, a scene 15-20 kB), so padding reaches them.
  const quirky = { seed: 3, cropBytes: 8000, sceneBytes: 30_000, unknownRate: 0.2, repeatRate: 0.3 } as const;
  const g = createReadGenerator({ ...quirky, scenes: 'plate' });
  const reads = Array.from({ length: 200 }, (_, i) => g.next(1_900_000_000_000 + i * 2000));
  const repeats = reads.filter((r) => r.repeatOf !== undefined);
  const unknowns = reads.filter((r) => r.unknown);
  t.ok(repeats.length > 20 && unknowns.length > 10, `quirks present (${repeats.length} repeats, ${unknowns.length} unknown)`);
  for (const r of repeats) {
    const original = reads[r.repeatOf ?? -1];
    t.equal(r.plate, original?.plate, 'repeat keeps the plate');
    const gap = r.timeMs - (original?.timeMs ?? 0);
    t.ok(gap > 0 && gap < 1000, 'repeat within 1 s');
  }
  for (const r of unknowns) t.match(r, { plate: 'unknown', confidence: 0 });
  t.ok(
    reads.every((r, i) => i === 0 || r.timeMs > (reads[i - 1]?.timeMs ?? 0)),
    'capture times strictly increase',
  );
  const crop = reads[0]?.crop ?? Buffer.alloc(0);
  t.ok(crop.length > 6800 && crop.length < 9200, `crop size near the configured size (${crop.length})`);
  // The first read again with its street scene (the quirks above do not depend on scenes).
  const street = createReadGenerator(quirky).next(1_900_000_000_000);
  t.same([street.plate, street.crop], [reads[0]?.plate, crop], 'the same read');
  const scene = street.scene;
  t.ok(scene.length > 25_500 && scene.length < 34_500, `scene size near the configured size (${scene.length})`);
  t.equal(jpeg.decode(scene).width, 640, 'a street scene');
  const first = reads.find((r) => !r.unknown);
  for (const image of [first?.crop, first?.scene]) t.ok(jpeg.decode(image ?? Buffer.alloc(0)).width > 0, 'real pictures: they decode');
});

t.test('a size under the drawn picture gives the picture as drawn', async (t) => {
  const g = createReadGenerator({ seed: 5, cropBytes: 300, sceneBytes: 800 });
  const read = g.next(1_900_000_000_000);
  t.same([jpeg.decode(read.crop).width, jpeg.decode(read.scene).width], [240, 640]);
});

t.test("scenes: 'plate' makes each scene the plate crop, a file of its own, and leaves the reads as they were", async (t) => {
  const reads = (scenes?: 'plate') => {
    const g = createReadGenerator({ seed: 5, cropBytes: 300, sceneBytes: 6_000, ...(scenes ? { scenes } : {}) });
    return Array.from({ length: 3 }, (_, i) => g.next(1_900_000_000_000 + i * 1000));
  };
  const plain = reads('plate');
  t.same(
    plain.map((r) => [r.plate, r.timeMs, r.crop.length]),
    reads().map((r) => [r.plate, r.timeMs, r.crop.length]),
    'same plates, times and crops',
  );
  for (const read of plain) {
    const scene = jpeg.decode(read.scene);
    t.same([scene.width, scene.height], [240, 80], 'a real picture of the plate');
    t.ok(read.scene.length >= 6_000 * 0.85, `padded to the scene size asked: ${read.scene.length} bytes`);
    t.notOk(read.scene.equals(read.crop), 'not the crop file');
  }
  t.equal(new Set(plain.map((r) => r.scene.toString('hex'))).size, 3, 'each read its own scene');
});

t.test('plates carry separators and normalize to alphanumerics', async (t) => {
  const rng = createRng(11);
  const plates = Array.from({ length: 100 }, () => plateText(rng));
  t.ok(plates.some((p) => p.includes(' ')) && plates.some((p) => p.includes('-')), 'spaces and dashes appear');
  for (const p of plates) t.match(normalizedPlate(p), /^[A-Z0-9]{5,9}$/);
});

t.test('jpegBytes: a real JPEG of the exact size, SOI first, EOI only at the end', async (t) => {
  const bytes = jpegBytes(createRng(1), 65_000);
  t.equal(bytes.length, 65_000);
  t.same([jpeg.decode(bytes).width, jpeg.decode(jpegBytes(createRng(1), 65_000, 'scene')).width], [240, 640], 'a crop, or a scene when asked');
  t.ok(jpegBytes(createRng(2), 20_000).equals(jpegBytes(createRng(2), 20_000)), 'from the seed');
  t.same([...bytes.subarray(0, 2)], [0xff, 0xd8]);
  t.same([...bytes.subarray(-2)], [0xff, 0xd9]);
  t.equal(bytes.subarray(2, -2).indexOf(Buffer.from([0xff, 0xd9])), -1);
});

t.test('camera local time formats', async (t) => {
  const ms = Date.UTC(2030, 0, 2, 3, 4, 5, 670);
  t.equal(isoLocal(ms, 'Asia/Dubai'), '2030-01-02T07:04:05.670+04:00');
  t.equal(compactLocal(ms, 'America/St_Johns'), '20300101T233405-0330');
  t.equal(isoLocal(Date.UTC(2030, 6, 1, 12), 'Europe/Paris'), '2030-07-01T14:00:00.000+02:00', 'summer time');
  t.equal(localDigits(ms, 'UTC'), '20300102030405');
});

t.test('picName and cursor rules', async (t) => {
  const g = createReadGenerator({ seed: 1, cropBytes: 10, sceneBytes: 10, repeatRate: 0 });
  const a = g.next(Date.UTC(2030, 0, 2, 3, 4, 5, 120));
  const first = nextPicName(a, 'UTC', undefined);
  t.equal(first, '203001020304051200');
  t.ok(BigInt(first) > BigInt(Number.MAX_SAFE_INTEGER), 'beyond 2^53: must stay a string');
  t.equal(nextPicName(a, 'UTC', '203001020304059999'), '203001020304060000', 'never goes backwards');
  t.match(parseCursor('202001301301320000'), { kind: 'picName' });
  t.match(parseCursor('20200130130132'), { kind: 'local' });
  t.match(parseCursor('2020-03-07T21:00:00Z'), { kind: 'instant', ms: Date.UTC(2020, 2, 7, 21) });
  t.match(parseCursor('0'), { kind: 'picName', value: 0n });
  t.equal(parseCursor('yesterday'), undefined);
  t.equal(picTimeOf('<AfterTime><picTime>123</picTime></AfterTime>'), '123');
  t.equal(picTimeOf('<AfterTime/>'), undefined);
});
