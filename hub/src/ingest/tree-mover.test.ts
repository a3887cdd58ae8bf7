import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { encodeRecords, scanRecords } from './image-journal.ts';
import { openImageTree } from './image-tree.ts';
import { sha256Hex } from './image-store.ts';
import { jpegLike } from './test-support.ts';
import { startTreeMover } from './tree-mover.ts';

t.test('the mover thread copies a segment\'s records into the tree, each once', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'mover-'));
  const images = [jpegLike(300_000), jpegLike(20_000), jpegLike(1)];
  const segment = join(root, 'segment.aij');
  await writeFile(segment, Buffer.concat(encodeRecords(images.map((bytes) => ({ sha256: sha256Hex(bytes), bytes })), 0).chunks));
  const records = scanRecords(await readFile(segment)).records;
  const mover = startTreeMover(root);
  t.teardown(() => mover.close());
  const tree = openImageTree(root);

  const paths = await mover.move(segment, records);
  t.same(paths, images.map((bytes) => tree.pathOf(sha256Hex(bytes))), 'a path per record, in order');
  for (const bytes of images) t.same(await readFile(tree.pathOf(sha256Hex(bytes))), bytes, 'the same bytes in the tree');
  t.same(await mover.move(segment, records), [null, null, null], 'already there: nothing written twice');
});

t.test('a failed call is rejected with its reason; the thread keeps serving', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'mover-'));
  const mover = startTreeMover(root);
  t.teardown(() => mover.close());
  const missing = { sha256: 'a'.repeat(64), size: 10, offset: 40 };
  await t.rejects(mover.move(join(root, 'gone.aij'), [missing]), /image mover: .*ENOENT/);
  const bytes = jpegLike(500);
  const segment = join(root, 'short.aij');
  await writeFile(segment, Buffer.concat(encodeRecords([{ sha256: sha256Hex(bytes), bytes }], 0).chunks).subarray(0, 100));
  await t.rejects(mover.move(segment, [{ sha256: sha256Hex(bytes), size: 500, offset: 40 }]), /60 of 500 bytes/, 'a segment cut short');
  const whole = join(root, 'whole.aij');
  await writeFile(whole, Buffer.concat(encodeRecords([{ sha256: sha256Hex(bytes), bytes }], 0).chunks));
  t.same((await mover.move(whole, scanRecords(await readFile(whole)).records)).length, 1, 'the next call works');
});
