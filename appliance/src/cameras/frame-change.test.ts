import t from 'tap';
import jpeg from 'jpeg-js';
import { sceneJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { emptyRoadJpeg } from '../../../scripts/simulators/snapshot-scenes.ts';
import { DEFAULT_CHANGE_THRESHOLD, greyThumbnail, hasChanged, meanAbsDiff } from './frame-change.ts';
import { cropJpeg, FrameError, thumbnailOfJpeg } from './frame-pixels.ts';

const rgba = (width: number, height: number, grey: (x: number, y: number) => number): Uint8Array => {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const v = grey(x, y);
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  return data;
};

t.test('thumbnail: 64 across, aspect kept, block means', async (t) => {
  const th = greyThumbnail(
    rgba(640, 360, (x) => (x < 320 ? 0 : 200)),
    640,
    360,
  );
  t.equal(th.width, 64);
  t.equal(th.height, 36);
  t.equal(th.data[0], 0);
  t.equal(th.data[63], 200);
  t.equal(meanAbsDiff(th, th), 0);
  t.equal(
    meanAbsDiff(
      th,
      greyThumbnail(
        rgba(64, 64, () => 0),
        64,
        64,
      ),
    ),
    Infinity,
    'another shape: changed',
  );
});

t.test('change check on real JPEGs: the same picture again is still; a car arriving is a change', async (t) => {
  const road = thumbnailOfJpeg(emptyRoadJpeg()).thumbnail;
  const again = thumbnailOfJpeg(emptyRoadJpeg()).thumbnail;
  const car = thumbnailOfJpeg(sceneJpeg('AB12CDE', { seed: 3 })).thumbnail;
  t.notOk(hasChanged(road, again), 'the same road');
  t.ok(meanAbsDiff(road, car) > DEFAULT_CHANGE_THRESHOLD * 2, `a car: ${meanAbsDiff(road, car).toFixed(1)}`);
  t.ok(hasChanged(road, car));
  t.ok(hasChanged(undefined, road), 'the first frame is always read');
});

t.test('frames that are not JPEGs are named; a crop is a real JPEG of the widened box', async (t) => {
  t.throws(() => thumbnailOfJpeg(new TextEncoder().encode('<html>busy</html>')), FrameError);
  t.throws(() => thumbnailOfJpeg(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])), /JPEG not decodable/);
  const crop = jpeg.decode(cropJpeg(sceneJpeg('AB12CDE'), { x: 600, y: 340, width: 100, height: 40 }), { useTArray: true });
  t.same([crop.width, crop.height], [60, 40], 'clamped to the frame: from 580,320 to its edge');
});
