import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openFrameReader } from './open-reader.ts';
import { ReaderError } from './types.ts';

t.test('a missing model: the reader opens, and every read names the missing file', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'reader-no-models-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const reader = await openFrameReader({ threads: 1, modelDir: empty });
  t.teardown(() => reader.close());
  const error = await reader.read(new Uint8Array([0xff, 0xd8, 0xff])).catch((e: unknown) => e);
  t.ok(error instanceof ReaderError);
  t.equal((error as ReaderError).code, 'model_missing');
  t.match((error as ReaderError).message, join(empty, 'ch_PP-OCRv4_det_infer.onnx'));
});

t.test('an undecodable frame is refused, and the reader goes on; a closed reader refuses reads', async (t) => {
  const reader = await openFrameReader({ threads: 1 });
  const garbage = await reader.read(new TextEncoder().encode('not a picture')).catch((e: unknown) => e);
  t.equal((garbage as ReaderError).code, 'undecodable');
  const truncated = await reader.read(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2])).catch((e: unknown) => e);
  t.equal((truncated as ReaderError).code, 'undecodable');
  await reader.close();
  const closed = await reader.read(new Uint8Array([0xff, 0xd8])).catch((e: unknown) => e);
  t.equal((closed as ReaderError).code, 'closed');
});
