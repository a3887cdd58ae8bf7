import t from 'tap';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openImageStore, sha256Hex } from './image-store.ts';

t.test('stores by SHA-256, reads back the same bytes, writes once', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'images-'));
  const store = openImageStore(root);
  const bytes = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(20_000, 7), Buffer.from([0xff, 0xd9])]);
  const first = await store.put(bytes);
  t.equal(first.sha256, sha256Hex(bytes));
  t.equal(first.size, bytes.length);
  t.equal(first.written, true);
  t.same(Buffer.from((await store.get(first.sha256)) ?? []), bytes);
  t.equal((await readFile(store.pathOf(first.sha256))).length, bytes.length);
  const again = await store.put(bytes);
  t.equal(again.written, false, 'same content is not written twice');
  const other = Buffer.from('another image');
  const known = await store.put(other, sha256Hex(other));
  t.same({ sha256: known.sha256, written: known.written }, { sha256: sha256Hex(other), written: true }, 'a caller-computed hash names the file');
  t.same(Buffer.from((await store.get(sha256Hex(other))) ?? []), other);
  const folder = join(root, first.sha256.slice(0, 2), first.sha256.slice(2, 4));
  t.same((await readdir(folder)).filter((f) => f.endsWith('.tmp')), [], 'no temp files left');
});

t.test('rejects names that are not a digest (no path traversal)', async (t) => {
  const store = openImageStore(await mkdtemp(join(tmpdir(), 'images-')));
  t.throws(() => store.pathOf('../../etc/passwd'));
  t.equal(await store.get('../../etc/passwd'), undefined);
});
