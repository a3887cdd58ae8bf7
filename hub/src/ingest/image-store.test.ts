import t from 'tap';
import { appendFile, mkdir, mkdtemp, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecords, RECORD_HEADER_BYTES, scanRecords, segmentName, skipBytes } from './image-journal.ts';
import { JOURNAL_FOLDER, openImageStore, sha256Hex } from './image-store.ts';
import { jpegLike } from './test-support.ts';

const entry = (bytes: Buffer) => ({ sha256: sha256Hex(bytes), bytes });
const tempRoot = () => mkdtemp(join(tmpdir(), 'images-'));
/** Journal segments holding anything (the store keeps one empty spare segment ready). */
async function segmentsWithRecords(root: string): Promise<string[]> {
  const dir = join(root, JOURNAL_FOLDER);
  const names = await readdir(dir);
  const sizes = await Promise.all(names.map(async (n) => ({ n, size: (await stat(join(dir, n))).size })));
  return sizes.filter((s) => s.size > 0).map((s) => s.n);
}

t.test('stores by SHA-256, reads back the same bytes, writes once', async (t) => {
  const root = await tempRoot();
  const store = openImageStore(root);
  t.teardown(() => store.close());
  const bytes = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(20_000, 7), Buffer.from([0xff, 0xd9])]);
  const first = await store.put(bytes);
  t.equal(first.sha256, sha256Hex(bytes));
  t.equal(first.size, bytes.length);
  t.equal(first.written, true);
  t.same(Buffer.from((await store.get(first.sha256)) ?? []), bytes, 'readable from the journal at once');
  const again = await store.put(bytes);
  t.equal(again.written, false, 'same content is not written twice');
  const other = Buffer.from('another image');
  const known = await store.put(other, sha256Hex(other));
  t.same({ sha256: known.sha256, written: known.written }, { sha256: sha256Hex(other), written: true }, 'a caller-computed hash names the file');
  await store.drain();
  t.same(await readFile(store.pathOf(first.sha256)), bytes, 'moved into the tree');
  t.same(Buffer.from((await store.get(sha256Hex(other))) ?? []), other);
  t.same(await segmentsWithRecords(root), [], 'segment deleted once moved and flushed');
  const folder = join(root, first.sha256.slice(0, 2), first.sha256.slice(2, 4));
  t.same((await readdir(folder)).filter((f) => f.endsWith('.tmp')), [], 'no temp files left');
  t.equal((await store.put(bytes)).written, false, 'present in the tree: not journaled again');
});

t.test('a batch is one append: one segment holds all its images, in order', async (t) => {
  const root = await tempRoot();
  const store = openImageStore(root, { idleSealMs: 60_000 });
  const images = [jpegLike(65_000), jpegLike(20_000), jpegLike(30_000)];
  await store.putBatch(images.map(entry));
  const names = await readdir(join(root, JOURNAL_FOLDER));
  const segment = names.find((n) => n === segmentName(1));
  t.ok(segment, `first segment is ${segmentName(1)} (got ${names.join(', ')})`);
  const scanned = scanRecords(await readFile(join(root, JOURNAL_FOLDER, segmentName(1))));
  t.same(scanned.records.map((r) => r.sha256), images.map((i) => sha256Hex(i)));
  await store.close();
});

t.test('concurrent batches all become durable and readable (group commit)', async (t) => {
  const root = await tempRoot();
  const store = openImageStore(root, { segmentBytes: 200_000 });
  t.teardown(() => store.close());
  const batches = Array.from({ length: 8 }, () => [jpegLike(40_000), jpegLike(15_000)]);
  await Promise.all(batches.map((b) => store.putBatch(b.map(entry))));
  for (const image of batches.flat()) t.same(Buffer.from((await store.get(sha256Hex(image))) ?? []), image);
  await store.drain();
  for (const image of batches.flat()) t.same(await readFile(store.pathOf(sha256Hex(image))), image);
  t.same(await segmentsWithRecords(root), [], 'every rotated segment retired');
});

t.test('start-up replays a crashed journal: intact records into the tree, torn tail dropped', async (t) => {
  const root = await tempRoot();
  const journal = join(root, JOURNAL_FOLDER);
  await mkdir(journal, { recursive: true });
  const kept = [jpegLike(30_000), jpegLike(12_000)];
  const torn = jpegLike(25_000);
  const corrupt = jpegLike(9_000);
  // Segment 7: two whole records, then a record cut short by the crash.
  const first = Buffer.concat(encodeRecords([...kept, torn].map(entry), 0).chunks);
  const cut = first.length - 1_000;
  await writeFile(join(journal, segmentName(7)), first);
  await truncate(join(journal, segmentName(7)), cut);
  // Segment 8: one record whose bytes were damaged (hash mismatch), then garbage.
  const second = Buffer.concat(encodeRecords([entry(corrupt)], 0).chunks);
  second[RECORD_HEADER_BYTES + 10] = (second[RECORD_HEADER_BYTES + 10] ?? 0) ^ 0xff;
  await writeFile(join(journal, segmentName(8)), second);
  await appendFile(join(journal, segmentName(8)), Buffer.from('not a record'));

  const store = openImageStore(root);
  t.teardown(() => store.close());
  await store.ready();
  for (const image of kept) t.same(await readFile(store.pathOf(sha256Hex(image))), image, 'intact record replayed into the tree');
  t.equal(await store.get(sha256Hex(torn)), undefined, 'torn record (never acknowledged) dropped');
  t.equal(await store.get(sha256Hex(corrupt)), undefined, 'damaged record dropped');
  t.same(await readdir(journal), [], 'replayed segments deleted');
  const next = jpegLike(1_000);
  await store.putBatch([entry(next)]);
  t.ok((await readdir(journal)).includes(segmentName(9)), 'numbering continues after the replayed segments');
});

t.test('scanRecords stops at the first bad record', async (t) => {
  const a = jpegLike(100);
  const buffer = Buffer.concat(encodeRecords([entry(a)], 0).chunks);
  t.same(scanRecords(buffer).records.length, 1);
  t.same(scanRecords(buffer.subarray(0, RECORD_HEADER_BYTES - 1)).records, [], 'header cut short');
  t.same(scanRecords(Buffer.alloc(200)).records, [], 'zeros (preallocated space) are not a record');
});

t.test('skipBytes: what a partial writev leaves', async (t) => {
  const chunks = [Buffer.from('abc'), Buffer.from('de'), Buffer.from('fghi')];
  const left = (n: number) => Buffer.concat(skipBytes(chunks, n)).toString();
  t.equal(left(0), 'abcdefghi');
  t.equal(left(2), 'cdefghi', 'inside the first');
  t.equal(left(3), 'defghi', 'at a boundary');
  t.equal(left(6), 'ghi');
  t.equal(left(9), '', 'all written');
  t.equal(skipBytes(chunks, 0)[0], chunks[0], 'untouched chunks are not copied');
});

t.test('an unusable folder fails every write (the route answers 503)', async (t) => {
  const store = openImageStore('/dev/null/images');
  await t.rejects(store.putBatch([entry(jpegLike(100))]));
  await store.close();
});

t.test('rejects names that are not a digest (no path traversal)', async (t) => {
  const store = openImageStore(await tempRoot());
  t.teardown(() => store.close());
  t.throws(() => store.pathOf('../../etc/passwd'));
  t.equal(await store.get('../../etc/passwd'), undefined);
});

/** Polls until `check` holds (the mover and its tick run in the background), at most ~10 s. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

t.test('a moved segment waits for its flush: kept until old enough, deleted by drain() at once', async (t) => {
  const root = await tempRoot();
  const store = openImageStore(root, { segmentBytes: 50_000, idleSealMs: 100, retireAfterMs: 60_000 });
  t.teardown(() => store.close());
  const images = [jpegLike(40_000), jpegLike(40_000), jpegLike(40_000)];
  for (const image of images) await store.putBatch([entry(image)]);
  const inTree = async () => (await Promise.all(images.map((i) => stat(store.pathOf(sha256Hex(i))).then(() => true, () => false)))).every(Boolean);
  t.ok(await eventually(inTree), 'every image copied into the tree');
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // sealed (100 ms idle), ticks passed
  const kept = await segmentsWithRecords(root);
  t.ok(kept.length > 0, 'moved, but not yet flushed: still on disk');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.same(await segmentsWithRecords(root), kept, 'and still there after more ticks');
  await store.drain();
  t.same(await segmentsWithRecords(root), [], 'drain() flushes and deletes them');
  for (const image of images) t.same(await readFile(store.pathOf(sha256Hex(image))), image);
});

t.test('moved segments past the byte bound are flushed and deleted without waiting', async (t) => {
  const root = await tempRoot();
  const store = openImageStore(root, { segmentBytes: 50_000, idleSealMs: 100, retireAfterMs: 60_000, retireBytes: 100_000 });
  t.teardown(() => store.close());
  for (let i = 0; i < 4; i++) await store.putBatch([entry(jpegLike(40_000))]);
  t.ok(await eventually(async () => (await segmentsWithRecords(root)).length < 2), 'deleted by the tick once over 100 kB');
});
