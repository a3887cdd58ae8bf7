import t from 'tap';
import { isPlateLikeBox, joinLineNeighbours, overlapShare } from './plate-rules.ts';
import { findTextBoxes } from './text-boxes.ts';

t.test('a text region in the probability map becomes one box, grown by the unclip margin', async (t) => {
  const width = 40;
  const height = 20;
  const map = new Float32Array(width * height);
  for (let y = 5; y < 10; y++) for (let x = 10; x < 30; x++) map[y * width + x] = 0.9;
  map[0] = 0.9; // a one-pixel speck: thinner than minSide
  const boxes = findTextBoxes(map, width, height);
  t.equal(boxes.length, 1);
  const [box] = boxes;
  t.ok(box && box.x < 10 && box.x + box.width > 30 && box.y < 5 && box.y + box.height > 10, 'grown on every side');
  t.equal(box?.score.toFixed(1), '0.9');
});

t.test('plate-likeness: legible height, plate-like shape, not a banner', async (t) => {
  t.ok(isPlateLikeBox({ x: 0, y: 0, width: 100, height: 30 }, 1280));
  t.notOk(isPlateLikeBox({ x: 0, y: 0, width: 40, height: 6 }, 1280), 'too small to read');
  t.notOk(isPlateLikeBox({ x: 0, y: 0, width: 20, height: 60 }, 1280), 'taller than wide');
  t.notOk(isPlateLikeBox({ x: 0, y: 0, width: 800, height: 40 }, 1280), 'a timestamp strip');
});

t.test('halves of a plate on one line are joined; boxes on other lines are not', async (t) => {
  const left = { x: 100, y: 50, width: 40, height: 30 };
  const right = { x: 160, y: 52, width: 40, height: 28 };
  const below = { x: 100, y: 120, width: 100, height: 12 };
  const joined = joinLineNeighbours([right, below, left]);
  t.same(joined, [{ x: 100, y: 50, width: 100, height: 30 }]);
  t.same(joinLineNeighbours([left, { ...right, x: 300 }]), [], 'too far apart');
  t.equal(overlapShare(left, joined[0] ?? left), 1);
});
