import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK, createDirectAppender } from './direct-append.ts';
import type { PositionalWriter } from './write-fully.ts';

/**
 * The O_DIRECT appender: on a real file opened with O_DIRECT (this machine's temporary
 * folder takes it), and against doubles that impose the kernel's alignment rule or refuse
 * every direct write, to prove the aligned start is found and the refusal is reported.
 */
const tempDir = async (t: Test): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-direct-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

t.test('appends of odd sizes through O_DIRECT leave exactly the bytes written, each write block-aligned', async (t) => {
  if (constants.O_DIRECT === undefined) {
    t.comment('no O_DIRECT on this platform: segments are written through the page cache');
    return;
  }
  const path = join(await tempDir(t), 'segment');
  const handle = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_DIRECT, 0o640);
  t.teardown(() => handle.close());
  const appender = createDirectAppender();
  let size = 0;
  let tail: Uint8Array = new Uint8Array(0);
  const expected: Buffer[] = [];
  // Sizes that start and end mid-block, exactly on a block, and span many blocks.
  for (const sizes of [[40, 1_000], [3_056], [5, 4_096 * 3 - 5], [70_001, 20_003, 40], [1]]) {
    const chunks = sizes.map((n) => randomBytes(n));
    const byteLength = sizes.reduce((a, b) => a + b, 0);
    const next = await appender.write(handle, size, tail, chunks, byteLength);
    if (next === 'unsupported') return t.fail('this file system refused O_DIRECT');
    await handle.datasync();
    expected.push(...chunks);
    size += byteLength;
    tail = next;
    t.equal(tail.byteLength, size % BLOCK, `tail after ${size} bytes`);
    const onDisk = await readFile(path);
    t.equal(onDisk.length % BLOCK, 0, 'the file ends on a block (zero padding)');
    t.ok(onDisk.subarray(0, size).equals(Buffer.concat(expected)), `the first ${size} bytes are the appended ones, earlier tails rewritten intact`);
    t.ok(
      onDisk.subarray(size).every((b) => b === 0),
      'zeros after them',
    );
  }
});

/** Takes a write only when the data address (staging offset) is aligned to `alignment` and position and length to BLOCK. */
function alignedOnly(alignment: number): PositionalWriter & { bytes: Buffer; refused: number; taken: number } {
  const state = {
    bytes: Buffer.alloc(0),
    refused: 0,
    taken: 0,
    async writev(buffers: readonly Uint8Array[], position: number) {
      const length = buffers.reduce((n, b) => n + b.byteLength, 0);
      if (buffers.some((b) => b.byteOffset % alignment !== 0 || b.byteLength % BLOCK !== 0) || position % BLOCK !== 0) {
        state.refused += 1;
        throw Object.assign(new Error('EINVAL: invalid argument, write'), { code: 'EINVAL' });
      }
      state.taken += 1;
      const end = position + length;
      if (state.bytes.length < end) state.bytes = Buffer.concat([state.bytes, Buffer.alloc(end - state.bytes.length)]);
      state.bytes.set(Buffer.concat(buffers), position);
      return { bytesWritten: length };
    },
  };
  return state;
}

t.test('the aligned start in the staging buffer is found by trying, once, and every write keeps to it', async (t) => {
  const disk = alignedOnly(512);
  const appender = createDirectAppender();
  const first = randomBytes(10_000);
  const tail = await appender.write(disk, 0, new Uint8Array(0), [first], first.length);
  t.not(tail, 'unsupported');
  const probes = disk.refused;
  t.ok(disk.refused < 512 / 16, `found after ${disk.refused} refused tries`);
  const second = randomBytes(7_000);
  const after = await appender.write(disk, first.length, tail as Uint8Array, [second], second.length);
  t.not(after, 'unsupported');
  t.equal(disk.refused, probes, 'no more tries once found');
  t.ok(disk.bytes.subarray(0, 17_000).equals(Buffer.concat([first, second])), 'the bytes, in order');
});

t.test('a file system that takes no direct write: reported as unsupported, nothing written; other errors are thrown', async (t) => {
  let tries = 0;
  const refusing: PositionalWriter = {
    writev: async () => {
      tries += 1;
      throw Object.assign(new Error('EINVAL: invalid argument, write'), { code: 'EINVAL' });
    },
  };
  const result = await createDirectAppender().write(refusing, 0, new Uint8Array(0), [randomBytes(100)], 100);
  t.equal(result, 'unsupported');
  t.equal(tries, BLOCK / 16, 'every 16-byte offset of the first block tried, none taken');
  const failing: PositionalWriter = {
    writev: async () => {
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    },
  };
  await t.rejects(createDirectAppender().write(failing, 0, new Uint8Array(0), [randomBytes(100)], 100), { code: 'EIO' });
  await t.rejects(createDirectAppender().write(refusing, 10, new Uint8Array(3), [randomBytes(1)], 1), /tail holds 3 bytes, expected 10/);
});
