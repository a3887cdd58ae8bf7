import t, { type Test } from 'tap';
import { constants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_STAGED_BYTES, type DirectAppender } from './direct-append.ts';
import { sha256Hex } from './image-store.ts';
import { openJournalWriter, scanRecords, type JournalWriterOptions, type Segment } from './segment-files.ts';
import { jpegLike } from '../ingest/uploads.test-helper.ts';

/**
 * The segment writer with and without direct appends (direct-append.ts): the file holds the
 * same records either way, appends use O_DIRECT where the file system takes it, and a file
 * system that refuses it mid-segment falls back to the page cache without losing a record.
 */
async function writer(t: Test, options: Partial<JournalWriterOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-segment-writer-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const created: Segment[] = [];
  const journal = openJournalWriter({
    dir,
    segmentBytes: 64 * 1024 * 1024,
    maxAgeMs: 3600_000,
    onCreated: (segment) => created.push(segment),
    onSealed: () => undefined,
    ...options,
  });
  t.teardown(() => journal.close());
  return { journal, created };
}

const entries = (sizes: readonly number[]) =>
  sizes.map((n) => {
    const bytes = jpegLike(n);
    return { sha256: sha256Hex(bytes), bytes };
  });

/** The open file's flags, from /proc (Linux). */
async function openFlags(fd: number): Promise<number | undefined> {
  const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => undefined);
  const match = info && /flags:\s+([0-7]+)/.exec(info);
  return match?.[1] === undefined ? undefined : parseInt(match[1], 8);
}

for (const directIo of [true, false]) {
  t.test(`${directIo ? 'direct' : 'page-cache'} appends: sequential and concurrent batches, every record intact and in place`, async (t) => {
    const { journal, created } = await writer(t, { directIo });
    const batches = [entries([65_000, 20_000]), entries([1, 4_055]), entries([30_001])];
    const first = await journal.append(batches[0]!);
    const rest = await Promise.all(batches.slice(1).map((b) => journal.append(b)));
    const segment = created[0]!;
    const flags = await openFlags(segment.handle.fd);
    if (flags !== undefined && constants.O_DIRECT !== undefined) {
      t.equal((flags & constants.O_DIRECT) !== 0, directIo, `segment opened ${directIo ? 'with' : 'without'} O_DIRECT`);
    }
    const scanned = scanRecords(await readFile(segment.path));
    const all = batches.flat();
    t.same(scanned.records.map((r) => r.sha256).sort(), all.map((e) => e.sha256).sort(), 'every record, intact');
    t.equal(scanned.validBytes, segment.size, 'the records end where the segment says');
    const bytes = await readFile(segment.path);
    for (const location of [first, ...rest].flatMap((a) => a.locations)) {
      const entry = all.find((e) => e.sha256 === location.sha256)!;
      t.ok(bytes.subarray(location.offset, location.offset + location.size).equals(entry.bytes), `${location.sha256.slice(0, 8)} at its offset`);
    }
  });
}

t.test('direct appends refused after the first: the segment continues through the page cache, reported once', async (t) => {
  const real = (await import('./direct-append.ts')).createDirectAppender();
  let calls = 0;
  const refusesSecond: DirectAppender = {
    write: (...args) => (++calls === 1 ? real.write(...args) : Promise.resolve('unsupported')),
  };
  const refusals: string[] = [];
  const { journal, created } = await writer(t, { directAppender: refusesSecond, onDirectIoRefused: (r) => refusals.push(r) });
  const batches = [entries([10_000]), entries([7_000]), entries([5_000])];
  const appended = [];
  for (const batch of batches) appended.push(await journal.append(batch));
  const segment = created[0]!;
  t.ok(
    appended.every((a) => a.segment === segment),
    'one segment throughout',
  );
  t.equal(segment.direct, false, 'the segment now appends through the page cache');
  t.equal(refusals.length, 1, 'reported once');
  const scanned = scanRecords(await readFile(segment.path));
  t.same(
    scanned.records.map((r) => r.sha256),
    batches.flat().map((e) => e.sha256),
    'every record, in order',
  );
  t.equal(scanned.validBytes, segment.size);
});

t.test('more waiting than one staged write holds: written as several groups, every record intact', async (t) => {
  const real = (await import('./direct-append.ts')).createDirectAppender();
  const groupBytes: number[] = [];
  const counting: DirectAppender = {
    write: (handle, size, tail, chunks, byteLength) => {
      groupBytes.push(byteLength);
      return real.write(handle, size, tail, chunks, byteLength);
    },
  };
  const { journal, created } = await writer(t, { directAppender: counting, segmentBytes: 1024 * 1024 * 1024 });
  const batches = Array.from({ length: 10 }, () => entries([4 * 1024 * 1024]));
  const appended = await Promise.all(batches.map((b) => journal.append(b)));
  t.ok(groupBytes.length >= 2, `${groupBytes.length} writes`);
  t.ok(
    groupBytes.every((n) => n <= MAX_STAGED_BYTES),
    'none larger than the staging limit',
  );
  const segment = created[0]!;
  t.ok(
    appended.every((a) => a.segment === segment),
    'one segment',
  );
  const scanned = scanRecords(await readFile(segment.path));
  t.same(
    scanned.records.map((r) => r.sha256).sort(),
    batches
      .flat()
      .map((e) => e.sha256)
      .sort(),
    'every record, intact',
  );
});
