import t, { type Test } from 'tap';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase, type TestDatabase } from '../db/database.test-helper.ts';
import { jpegLike } from '../ingest/uploads.test-helper.ts';
import { LEGACY_JOURNAL_FOLDER, openImageStore, SEGMENTS_FOLDER, sha256Hex, STORE_ID_FILE, type ImageStore, type ImageStoreOptions } from './image-store.ts';
import { indexImages, type ImageLocation } from './locations.ts';
import { encodeRecords, RECORD_HEADER_BYTES, scanRecords, segmentName } from './segment-files.ts';
import { skipBytes } from './write-fully.ts';

/*
 * The image store over a real database and real files: images appended once to segment
 * files, indexed as an upload indexes them (in a transaction), read back checked against
 * their hash; legacy journals replayed into the tree; compaction of garbage and orphans.
 */
const entry = (bytes: Buffer) => ({ sha256: sha256Hex(bytes), bytes });

async function open(t: Test, options: Partial<ImageStoreOptions> = {}): Promise<{ db: TestDatabase; root: string; store: ImageStore }> {
  const db = await testDatabase(t);
  const root = await mkdtemp(join(tmpdir(), 'images-'));
  const store = openImageStore(root, { db, ...options });
  t.teardown(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });
  return { db, root, store };
}

const index = (db: TestDatabase, locations: readonly ImageLocation[]): Promise<void> => db.transaction((tx) => indexImages(tx, new Date(), locations));
const count = async (db: TestDatabase, from: string): Promise<number> => Number((await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM ${from}`))[0]?.n);
const segmentFile = (root: string, id: number): string => join(root, SEGMENTS_FOLDER, segmentName(id));

t.test('a batch is one append, indexed, read back byte for byte; nothing is copied anywhere else', async (t) => {
  const { db, root, store } = await open(t);
  const images = [jpegLike(65_000), jpegLike(20_000), jpegLike(30_000)];
  const locations = await store.putBatch([...images, images[0]!].map(entry));
  t.equal(locations.length, 3, 'a hash repeated in the batch is appended once');
  t.equal(new Set(locations.map((l) => l.segment)).size, 1, 'one segment');
  t.equal(await store.get(sha256Hex(images[0]!)), undefined, 'not readable before its transaction commits');
  await index(db, locations);
  for (const image of images) t.same(Buffer.from((await store.get(sha256Hex(image))) ?? []), image);
  const scanned = scanRecords(await readFile(segmentFile(root, locations[0]!.segment)));
  t.same(
    scanned.records.map((r) => r.sha256),
    images.map((i) => sha256Hex(i)),
    'the records, in order',
  );
  t.same((await readdir(root)).sort(), [SEGMENTS_FOLDER, STORE_ID_FILE], 'no tree, no journal: the segment is the store');
  t.equal(await store.get('0'.repeat(64)), undefined, 'unknown hash');
  t.equal(await store.get('../../etc/passwd'), undefined, 'not a digest: no path is ever built from it');
});

t.test('concurrent batches share flushes and all become readable; segments rotate by size and are sealed', async (t) => {
  // Smaller than one batch: every flush (one group of batches) fills its segment.
  const { db, store } = await open(t, { segmentBytes: 50_000 });
  const batches = Array.from({ length: 9 }, () => [jpegLike(40_000), jpegLike(15_000)]);
  // Three waves of three at once: each wave shares a flush, and each flush fills its segment.
  const located = [];
  for (let wave = 0; wave < 3; wave += 1) {
    located.push(...(await Promise.all(batches.slice(wave * 3, wave * 3 + 3).map((b) => store.putBatch(b.map(entry))))));
  }
  await index(db, located.flat());
  for (const image of batches.flat()) t.same(Buffer.from((await store.get(sha256Hex(image))) ?? []), image);
  const used = new Set(located.flat().map((l) => l.segment));
  t.ok(used.size >= 2, `rotated over ${used.size} segments`);
  // Sealing is recorded in the background.
  for (let i = 0; i < 200 && (await count(db, 'image_segments WHERE sealed_at IS NOT NULL')) < used.size - 1; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(await count(db, 'image_segments WHERE sealed_at IS NOT NULL'), used.size - 1, 'every full segment sealed; the current one open');
});

t.test('a damaged record is never served', async (t) => {
  const errors: unknown[] = [];
  const { db, root, store } = await open(t, { onError: (e) => errors.push(e) });
  const image = jpegLike(10_000);
  const [location] = await store.putBatch([entry(image)]);
  await index(db, [location!]);
  const path = segmentFile(root, location!.segment);
  const bytes = await readFile(path);
  bytes[location!.offset + 100] = (bytes[location!.offset + 100] ?? 0) ^ 0x01;
  await writeFile(path, bytes);
  t.equal(await store.get(location!.sha256), undefined, 'one flipped bit: not served');
  t.match(String(errors[0]), /does not match its hash/, 'and reported');
});

t.test('a restart seals the segments left open and appends to a new one; old images stay readable', async (t) => {
  const { db, root, store } = await open(t);
  const before = jpegLike(5_000);
  const [first] = await store.putBatch([entry(before)]);
  await index(db, [first!]);
  await store.close();
  t.equal(await count(db, 'image_segments WHERE sealed_at IS NULL'), 2, 'the current segment and its spare are open');

  const again = openImageStore(root, { db });
  t.teardown(() => again.close());
  const after = jpegLike(5_000);
  const [second] = await again.putBatch([entry(after)]);
  await index(db, [second!]);
  t.ok(second!.segment > first!.segment, 'a fresh segment');
  const [stillOpen] = await db.sql<{ id: string }>(`SELECT id::text AS id FROM image_segments WHERE sealed_at IS NULL AND id = $1`, [first!.segment]);
  t.notOk(stillOpen, "the previous run's segment is sealed");
  t.same(Buffer.from((await again.get(sha256Hex(before))) ?? []), before);
  t.same(Buffer.from((await again.get(sha256Hex(after))) ?? []), after);
});

t.test('a journal left by a hub before segments is replayed into the tree, torn tail dropped, and read from there', async (t) => {
  const db = await testDatabase(t);
  const root = await mkdtemp(join(tmpdir(), 'images-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const journal = join(root, LEGACY_JOURNAL_FOLDER);
  await mkdir(journal, { recursive: true });
  const kept = [jpegLike(30_000), jpegLike(12_000)];
  const torn = jpegLike(25_000);
  const corrupt = jpegLike(9_000);
  const first = Buffer.concat(encodeRecords([...kept, torn].map(entry), 0).chunks);
  await writeFile(join(journal, segmentName(7)), first);
  await truncate(join(journal, segmentName(7)), first.length - 1_000);
  const second = Buffer.concat(encodeRecords([entry(corrupt)], 0).chunks);
  second[RECORD_HEADER_BYTES + 10] = (second[RECORD_HEADER_BYTES + 10] ?? 0) ^ 0xff;
  await writeFile(join(journal, segmentName(8)), second);
  await appendFile(join(journal, segmentName(8)), Buffer.from('not a record'));

  const store = openImageStore(root, { db });
  t.teardown(() => store.close());
  await store.ready();
  for (const image of kept) {
    const hash = sha256Hex(image);
    t.same(await readFile(join(root, hash.slice(0, 2), hash.slice(2, 4), `${hash}.jpg`)), image, 'intact record replayed into the tree');
    t.same(Buffer.from((await store.get(hash)) ?? []), image, 'read from the tree (no location row)');
  }
  t.equal(await store.get(sha256Hex(torn)), undefined, 'torn record (never acknowledged) dropped');
  t.equal(await store.get(sha256Hex(corrupt)), undefined, 'damaged record dropped');
  t.equal(await stat(journal).catch(() => undefined), undefined, 'the journal folder is gone');
  t.same([...(await store.remove(db, [sha256Hex(kept[0]!)]))], [sha256Hex(kept[0]!)], 'retention removes a tree image');
  t.equal(await store.get(sha256Hex(kept[0]!)), undefined);
});

t.test('compaction: segments with nothing indexed go after the grace, live ones stay', async (t) => {
  const { db, root, store } = await open(t, { idleSealMs: 20, graceMs: 0 });
  const live = jpegLike(8_000);
  const [kept] = await store.putBatch([entry(live)]);
  await index(db, [kept!]);
  await new Promise((r) => setTimeout(r, 200)); // idle: sealed, the next append rotates
  // Appended for a transaction that then failed: never indexed.
  const [garbage] = await store.putBatch([entry(jpegLike(8_000))]);
  t.not(garbage!.segment, kept!.segment);
  await new Promise((r) => setTimeout(r, 200));

  const report = await store.compact();
  t.match(report, { deleted: 1, rewritten: 0, damaged: [] });
  t.equal(await stat(segmentFile(root, garbage!.segment)).catch(() => undefined), undefined, 'the unindexed segment is deleted');
  t.equal(await count(db, `image_segments WHERE id = ${garbage!.segment}`), 0, 'and its row');
  t.same(Buffer.from((await store.get(kept!.sha256)) ?? []), live, 'the live segment untouched');

  const patient = openImageStore(root, { db, graceMs: 3600_000 });
  t.teardown(() => patient.close());
  const [fresh] = await store.putBatch([entry(jpegLike(8_000))]);
  await new Promise((r) => setTimeout(r, 200));
  t.match(await patient.compact(), { deleted: 0 }, 'within the grace an unindexed segment may still be committing: kept');
  t.ok(await stat(segmentFile(root, fresh!.segment)), 'still there');
});

t.test('a segment file whose registration was lost (a crash) is registered, sealed, at the next start', async (t) => {
  const { db, root, store } = await open(t);
  const image = jpegLike(6_000);
  const lostId = 1_000_000_000_000_123;
  await store.ready();
  await writeFile(segmentFile(root, lostId), Buffer.concat(encodeRecords([entry(image)], 0).chunks));
  const storeId = (await readFile(join(root, STORE_ID_FILE), 'utf8')).trim();
  await index(db, [{ sha256: sha256Hex(image), store: storeId, segment: lostId, offset: RECORD_HEADER_BYTES, size: image.length }]);
  t.same(Buffer.from((await store.get(sha256Hex(image))) ?? []), image, 'readable through its location');
  await store.putBatch([entry(jpegLike(1_000))]); // the writer starts
  await store.close(); // waits for the registry
  const [row] = await db.sql<{ sealed: boolean }>(`SELECT sealed_at IS NOT NULL AS sealed FROM image_segments WHERE store = $1 AND id = $2`, [storeId, lostId]);
  t.same(row, { sealed: true });
});

t.test('two hub processes on one database, each with its own folder, keep to their own segments', async (t) => {
  const { db, root: rootA, store: a } = await open(t, { idleSealMs: 20, graceMs: 0 });
  const rootB = await mkdtemp(join(tmpdir(), 'images-b-'));
  // Opened at once on a fresh folder, two stores agree on its id.
  const [b, b2] = [openImageStore(rootB, { db, idleSealMs: 20, graceMs: 0 }), openImageStore(rootB, { db })];
  t.teardown(async () => {
    await b.close();
    await b2.close();
    await rm(rootB, { recursive: true, force: true });
  });
  await Promise.all([b.ready(), b2.ready()]);
  const ids = await Promise.all([rootA, rootB].map(async (r) => (await readFile(join(r, STORE_ID_FILE), 'utf8')).trim()));
  t.not(ids[0], ids[1], 'each folder has its own id');

  const shared = jpegLike(4_000);
  const onlyA = jpegLike(4_000);
  const onlyB = jpegLike(4_000);
  await index(db, await a.putBatch([entry(shared), entry(onlyA)]));
  await index(db, await b.putBatch([entry(shared), entry(onlyB)]));
  t.equal(await count(db, 'image_locations'), 4, 'the shared image indexed once per store');
  t.same(Buffer.from((await a.get(sha256Hex(shared))) ?? []), shared, 'each reads its own copy');
  t.same(Buffer.from((await b.get(sha256Hex(shared))) ?? []), shared);
  t.equal(await a.get(sha256Hex(onlyB)), undefined, "the other folder's image is not readable here");
  t.same(Buffer.from((await b2.get(sha256Hex(onlyB))) ?? []), onlyB, 'but is from any process on that folder');

  await new Promise((r) => setTimeout(r, 200)); // both sealed
  await db.transaction((tx) => a.remove(tx, [sha256Hex(onlyB)]));
  t.match(await a.compact(), { deleted: 0, rewritten: 0 }, "A's compaction leaves B's dirty segment alone");
  t.match(await b.compact(), { rewritten: 1, moved: 1 }, "B's rewrites it");
  t.same(Buffer.from((await b.get(sha256Hex(shared))) ?? []), shared, 'the live image moved and reads back');
});

t.test('every copy of an image is indexed, and retention removes them all', async (t) => {
  const { db, root, store } = await open(t, { idleSealMs: 20, graceMs: 0 });
  const [x, y, z] = [jpegLike(5_000), jpegLike(5_000), jpegLike(5_000)];
  await index(db, await store.putBatch([entry(x), entry(y)]));
  await new Promise((r) => setTimeout(r, 200)); // sealed: the retry lands in another segment
  // The appliance retries after a lost answer: x is appended (and indexed) again.
  await index(db, await store.putBatch([entry(x), entry(z)]));
  await new Promise((r) => setTimeout(r, 200));
  t.equal(await count(db, `image_locations WHERE sha256 = decode('${sha256Hex(x)}', 'hex')`), 2, 'one row per copy');
  await db.transaction((tx) => store.remove(tx, [sha256Hex(x)]));
  t.match(await store.compact(), { rewritten: 2, moved: 2 });
  const files = await Promise.all((await readdir(join(root, SEGMENTS_FOLDER))).map((n) => readFile(join(root, SEGMENTS_FOLDER, n))));
  t.notOk(
    files.some((bytes) => bytes.includes(x)),
    "no copy of the removed image's bytes is left",
  );
  t.same(Buffer.from((await store.get(sha256Hex(y))) ?? []), y);
  t.same(Buffer.from((await store.get(sha256Hex(z))) ?? []), z);
});

t.test('a registry update that fails (the database restarting) is retried until it lands', async (t) => {
  const db = await testDatabase(t);
  const root = await mkdtemp(join(tmpdir(), 'images-'));
  let failures = 2;
  const flaky = {
    ...db,
    sql: (async (text: string, params?: readonly unknown[]) => {
      if (/image_segments/.test(text) && failures > 0) {
        failures -= 1;
        throw new Error('connection refused');
      }
      return db.sql(text, params);
    }) as TestDatabase['sql'],
  };
  const errors: unknown[] = [];
  const store = openImageStore(root, { db: flaky, registryRetryMs: 20, onError: (e) => errors.push(e) });
  t.teardown(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });
  const [location] = await store.putBatch([entry(jpegLike(1_000))]);
  for (let i = 0; i < 200 && (await count(db, `image_segments WHERE id = ${location!.segment}`)) === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(await count(db, `image_segments WHERE id = ${location!.segment}`), 1, 'registered in the end');
  t.equal(errors.length, 2, 'each failure reported');
});

t.test('compaction: a segment that fails is left for the next run, the others are done; two at once agree', async (t) => {
  const { db, root, store } = await open(t, { idleSealMs: 20, graceMs: 0 });
  const images = [jpegLike(3_000), jpegLike(3_000), jpegLike(3_000)];
  const located: ImageLocation[] = [];
  for (const image of images) {
    // Each in its own segment, with a second image that stays live.
    const locations = await store.putBatch([entry(image), entry(jpegLike(3_000))]);
    await index(db, locations);
    located.push(...locations);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 100));
  await db.transaction((tx) =>
    store.remove(
      tx,
      images.map((i) => sha256Hex(i)),
    ),
  );
  // The first segment's file replaced by a folder: reading it fails (EISDIR).
  const broken = located[0]!.segment;
  const brokenPath = segmentFile(root, broken);
  const original = await readFile(brokenPath);
  await rm(brokenPath);
  await mkdir(brokenPath);
  const first = await store.compact();
  t.same(
    first.failed.map((f) => f.segment),
    [broken],
    'the broken segment reported',
  );
  t.equal(first.rewritten, 2, 'the other two compacted all the same');
  t.equal(await count(db, `image_segments WHERE id = ${broken} AND dirty`), 1, 'the broken one still dirty, for the next run');

  await rm(brokenPath, { recursive: true });
  await writeFile(brokenPath, original); // repaired
  // Two compactions of one folder at once (the hub's schedule and the retention command).
  const other = openImageStore(root, { db, graceMs: 0 });
  t.teardown(() => other.close());
  const [a, b] = await Promise.all([store.compact(), other.compact()]);
  t.same([...a.failed, ...b.failed], [], 'neither fails');
  const files = await Promise.all((await readdir(join(root, SEGMENTS_FOLDER))).map((n) => readFile(join(root, SEGMENTS_FOLDER, n))));
  t.notOk(
    images.some((image) => files.some((bytes) => bytes.includes(image))),
    "no removed image's bytes left",
  );
  for (const l of located.filter((l) => !images.some((i) => sha256Hex(i) === l.sha256))) {
    t.ok(await store.get(l.sha256), 'every live image still reads back');
  }
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
  const db = await testDatabase(t);
  const store = openImageStore('/dev/null/images', { db });
  await t.rejects(store.putBatch([entry(jpegLike(100))]));
  await store.close();
});
