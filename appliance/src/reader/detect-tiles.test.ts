import t from 'tap';
import { planTiles, tileSpans } from './detect-tiles.ts';

t.test('tiles cover the frame, overlap, and hand every pixel to exactly one tile', async (t) => {
  for (const [total, count, overlap] of [
    [1280, 3, 96],
    [736, 2, 96],
    [960, 5, 96],
    [640, 1, 96],
  ] as const) {
    const spans = tileSpans(total, count, overlap);
    t.equal(spans.length, count, `${total} in ${count}`);
    let next = 0;
    for (const [i, span] of spans.entries()) {
      t.equal(span.from, next, 'the written parts meet without a gap or a double');
      t.ok(span.from >= span.start && span.to <= span.start + span.length, 'a tile writes only its own pixels');
      t.ok(span.start >= 0 && span.start + span.length <= total, 'inside the frame');
      if (count > 1) t.equal(span.length % 32, 0, 'a multiple of 32');
      const previous = spans[i - 1];
      if (previous) t.ok(previous.start + previous.length - span.start >= overlap, 'neighbours overlap');
      // No tile's own border (where the detector sees less context) reaches the map.
      if (i > 0) t.ok(span.from - span.start >= overlap / 2);
      if (i < count - 1) t.ok(span.start + span.length - span.to >= overlap / 2);
      next = span.to;
    }
    t.equal(next, total, 'the last tile reaches the end');
  }
});

t.test('the fewest tiles under the pixel budget', async (t) => {
  const whole = planTiles(640, 480, 380_000, 96);
  t.same([whole.columns.length, whole.rows.length], [1, 1], 'a small frame is one pass');
  const hd = planTiles(1280, 736, 380_000, 96);
  t.same([hd.columns.length, hd.rows.length], [3, 1], '1280×736 in three columns');
  t.same(
    hd.columns.map((c) => c.length),
    [512, 512, 512],
  );
  const tall = planTiles(1280, 960, 380_000, 96);
  const pixels = (tall.columns[0]?.length ?? 0) * (tall.rows[0]?.length ?? 0);
  t.ok(pixels <= 380_000, `within the budget (${pixels})`);
});
