import t from 'tap';
import { capacityOf } from './capacity.ts';
import { createIntakeMeter } from './intake-rate.ts';

const GiB = 1024 ** 3;
const MINUTE = 60_000;

t.test('intake rate: nothing before 10 minutes, then bytes per day at the rate seen', async (t) => {
  let now = 0;
  const meter = createIntakeMeter(() => now);
  // 50 detections a minute, 100 KB of images and 1 KB of metadata each (the planned load).
  const minute = () => {
    for (let i = 0; i < 50; i++) meter.record(100_000, 1_000);
    now += MINUTE;
  };
  for (let m = 0; m < 9; m++) minute();
  t.equal(meter.rate().imageBytesPerDay, null, 'under 10 minutes: no guess');
  minute();
  const rate = meter.rate();
  t.equal(rate.detectionsPerDay, 72_000);
  t.equal(rate.imageBytesPerDay, 7_200_000_000);
  t.equal(rate.metadataBytesPerDay, 72_000_000);
  now += 25 * 60 * MINUTE;
  t.equal(meter.rate().detectionsPerDay, 0, 'a day later the old minutes have left the window');
});

t.test('days held by the cap, and the warning under 7 days', async (t) => {
  const rate = { imageBytesPerDay: 7_200_000_000, metadataBytesPerDay: 72_000_000, detectionsPerDay: 72_000, observedMs: 3_600_000 };
  const old = capacityOf({ capBytes: 2 * GiB, rate, rows: 0, bufferedBytes: 0, imageBytes: 0, databaseUsedBytes: 0 });
  t.equal(old.days_of_images, 0.3, 'the old 2 GiB default: about 7 hours of images');
  t.equal(old.days_of_metadata, 29.8);
  t.match(old.warning, /holds 0\.3 days of images .* under 7/);

  const sized = capacityOf({ capBytes: 60 * GiB, rate, rows: 0, bufferedBytes: 0, imageBytes: 0, databaseUsedBytes: 0 });
  t.equal(sized.days_of_images, 8.9);
  t.equal(sized.warning, null, '8.9 days: no warning');

  // 100 rows with 100 KB of metadata on 300 KB of database pages besides images: overhead 3.
  const measured = capacityOf({ capBytes: 60 * GiB, rate, rows: 100, bufferedBytes: 10_100_000, imageBytes: 10_000_000, databaseUsedBytes: 10_300_000 });
  t.equal(measured.metadata_overhead, 3);
  t.equal(measured.days_of_metadata, 298.3, 'metadata days use the measured on-disk cost');

  const quiet = capacityOf({
    capBytes: 60 * GiB,
    rate: { imageBytesPerDay: null, metadataBytesPerDay: null, detectionsPerDay: null, observedMs: 0 },
    rows: 0,
    bufferedBytes: 0,
    imageBytes: 0,
    databaseUsedBytes: 0,
  });
  t.same([quiet.days_of_images, quiet.days_of_metadata, quiet.warning], [null, null, null], 'no rate yet: no figure, no warning');
});
