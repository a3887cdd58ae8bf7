import jpeg from 'jpeg-js';
import t from 'tap';
import { FONT_CHARACTERS, GLYPH_HEIGHT, GLYPH_WIDTH, inked } from './bitmap-font.ts';
import { CROP_HEIGHT, CROP_WIDTH, cropOrigin, plateCropJpeg, plateLayout, SCENE_HEIGHT, SCENE_WIDTH, sceneJpeg } from './draw-plate.ts';
import { padJpeg } from './jpeg.ts';

type Decoded = ReturnType<typeof jpeg.decode>;
const decode = (bytes: Buffer): Decoded => jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true }) as unknown as Decoded;
const luma = (image: Decoded, x: number, y: number): number => {
  const i = (y * image.width + x) * 4;
  return 0.299 * (image.data[i] ?? 0) + 0.587 * (image.data[i + 1] ?? 0) + 0.114 * (image.data[i + 2] ?? 0);
};

/**
 * Reads the plate back from the decoded pixels: each character cell is compared with every
 * glyph of the font at the centre of each font unit, and the closest glyph wins. A picture
 * that is blank, garbled or shows other characters does not read back as its plate.
 */
function readBack(image: Decoded, plate: string, offset = { x: 0, y: 0 }): string {
  const layout = plateLayout(plate);
  return [...layout.text]
    .map((_, i) => {
      const left = layout.textX + i * (GLYPH_WIDTH + 1) * layout.sx;
      const dark = (col: number, row: number): boolean =>
        luma(image, offset.x + left + col * layout.sx + Math.floor(layout.sx / 2), offset.y + layout.textY + row * layout.sy + Math.floor(layout.sy / 2)) < 100;
      let best = '?';
      let bestMisses = Infinity;
      for (const char of FONT_CHARACTERS) {
        let misses = 0;
        for (let row = 0; row < GLYPH_HEIGHT; row++) for (let col = 0; col < GLYPH_WIDTH; col++) if (dark(col, row) !== inked(char, col, row)) misses++;
        if (misses < bestMisses) [best, bestMisses] = [char, misses];
      }
      return best;
    })
    .join('');
}

t.test('a plate crop is a JPEG of the plate: its size, and its characters read back from the pixels', async (t) => {
  for (const [seed, plate] of ['AB 123 CD', 'XY-12345', 'AB12 CDE', 'M-AB 1234', 'ABC.123', 'WA7CH01', 'QO0D8B3'].entries()) {
    const bytes = plateCropJpeg(plate, { seed });
    t.ok(bytes.length > 1_000 && bytes.length < 12_000, `${plate}: ${bytes.length} bytes`);
    const image = decode(bytes);
    t.same([image.width, image.height], [CROP_WIDTH, CROP_HEIGHT]);
    t.equal(readBack(image, plate), plate, `${plate} reads back`);
  }
});

t.test('an unread plate gets a crop with a blank plate', async (t) => {
  const image = decode(plateCropJpeg('unknown'));
  const { plate } = plateLayout('unknown');
  let dark = 0;
  for (let y = plate.y + 4; y < plate.y + plate.height - 4; y++)
    for (let x = plate.x + 24; x < plate.x + plate.width - 4; x++) if (luma(image, x, y) < 100) dark++;
  t.equal(dark, 0, 'no ink on it');
  const inkedCrop = decode(plateCropJpeg('AB 123 CD'));
  let inkedDark = 0;
  for (let y = plate.y + 4; y < plate.y + plate.height - 4; y++)
    for (let x = plate.x + 24; x < plate.x + plate.width - 4; x++) if (luma(inkedCrop, x, y) < 100) inkedDark++;
  t.ok(inkedDark > 500, `a read plate has glyph pixels (${inkedDark} dark)`);
});

t.test('a scene holds the crop where cropOrigin says, and the caption', async (t) => {
  const bytes = sceneJpeg('WA7CH05', { seed: 9, caption: '2026-11-27 02:18:37' });
  t.ok(bytes.length > 5_000 && bytes.length < 60_000, `${bytes.length} bytes`);
  const image = decode(bytes);
  t.same([image.width, image.height], [SCENE_WIDTH, SCENE_HEIGHT]);
  t.equal(readBack(image, 'WA7CH05', cropOrigin(9)), 'WA7CH05', 'the plate reads back inside the scene');
  t.not(sceneJpeg('WA7CH05', { seed: 9, caption: '2026-11-27 02:18:38' }).equals(bytes), 'the caption is drawn');
});

t.test('deterministic: the same plate and seed give the same bytes, another seed other bytes', async (t) => {
  t.ok(plateCropJpeg('AB12CDE', { seed: 3 }).equals(plateCropJpeg('AB12CDE', { seed: 3 })));
  t.ok(sceneJpeg('AB12CDE', { seed: 3, size: 70_000 }).equals(sceneJpeg('AB12CDE', { seed: 3, size: 70_000 })));
  const seeds = new Set(Array.from({ length: 8 }, (_, seed) => plateCropJpeg('AB12CDE', { seed }).toString('base64')));
  t.ok(seeds.size > 1, `${seeds.size} different crops from 8 seeds`);
  t.not(plateCropJpeg('AB12CDE').equals(plateCropJpeg('AB12CDF')), 'another plate, other bytes');
});

t.test('padding reaches the exact size and the picture still decodes to the same pixels', async (t) => {
  const picture = plateCropJpeg('PAD 123');
  const pixels = decode(picture).data;
  // 1-3 bytes: fill bytes; 4 and up: COM segments, more than one past 65,537 bytes.
  for (const extra of [1, 2, 3, 4, 5, 100, 65_537, 65_538, 65_540, 65_541, 200_000]) {
    const padded = padJpeg(picture, picture.length + extra, 7);
    t.equal(padded.length, picture.length + extra, `+${extra} bytes`);
    t.same(Buffer.from(decode(padded).data), Buffer.from(pixels), `+${extra}: same pixels`);
    t.same([...padded.subarray(-2)], [0xff, 0xd9], 'ends with EOI');
    t.equal(padded.indexOf(Buffer.from([0xff, 0xd9])), padded.length - 2, 'and EOI appears only at the end');
  }
  t.equal(padJpeg(picture, 10), picture, 'a size under the picture gives the picture as drawn');
});
