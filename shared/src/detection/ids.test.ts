import t from 'tap';
import { createHash } from 'node:crypto';
import { derivedDetectionId } from './ids.ts';

const UUID_V5_LAYOUT = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('derived ids have the UUID version 5 layout', async (t) => {
  for (let i = 0; i < 200; i += 1) {
    t.match(derivedDetectionId('vendor_a', 'aabbccddeeff', `2030-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`, `P${i}`), UUID_V5_LAYOUT);
  }
});

t.test('derived ids are deterministic and depend on every part', async (t) => {
  const parts = ['vendor_b', '7cd8b328641b', '2030-03-17T17:46:44.000Z', 'XY12ABC'] as const;
  const id = derivedDetectionId(...parts);
  t.equal(derivedDetectionId(...parts), id, 'same read, same id');
  for (let i = 0; i < parts.length; i += 1) {
    const changed = parts.map((p, j) => (j === i ? `${p}x` : p));
    t.not(derivedDetectionId(...changed), id, `part ${i} matters`);
  }
  t.not(derivedDetectionId('ab', 'c'), derivedDetectionId('a', 'bc'), 'parts are separated, not concatenated');
});

t.test('derived id is the SHA-256 of the NUL-joined parts with version and variant bits set', async (t) => {
  const hex = createHash('sha256').update('a\u0000b').digest('hex');
  const id = derivedDetectionId('a', 'b');
  const bare = id.replace(/-/g, '');
  t.equal(bare.length, 32);
  for (let i = 0; i < 32; i += 1) {
    if (i === 12) t.equal(bare[i], '5', 'version nibble');
    else if (i === 16) t.equal(parseInt(bare[i] ?? '', 16), (parseInt(hex[i] ?? '', 16) & 0x3) | 0x8, 'variant nibble');
    else t.equal(bare[i], hex[i], `hex digit ${i} comes from the digest`);
  }
});
