import t from 'tap';
import { HubError } from '../platform/errors.ts';
import { readBodyLimited } from './body-limit.ts';

function streamOf(chunks: number[], onPull?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      onPull?.();
      const size = chunks[i++];
      if (size === undefined) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(i));
    },
  });
}

const request = (body: ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/x', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

t.test('reads a body up to the limit exactly', async (t) => {
  const body = await readBodyLimited(request(streamOf([400, 600])), 1000);
  t.equal(body.byteLength, 1000);
  t.equal(body[0], 1);
  t.equal(body[999], 2);
  t.equal((await readBodyLimited(request(null), 10)).byteLength, 0);
});

t.test('a stream over the limit stops at the first chunk past it (no Content-Length)', async (t) => {
  let pulls = 0;
  const err = await readBodyLimited(request(streamOf([600, 600, 600, 600, 600], () => pulls++)), 1000).catch((e: unknown) => e);
  t.ok(err instanceof HubError && err.status === 413, '413');
  t.ok(pulls <= 3, `stopped reading early (${pulls} pulls)`);
});

t.test('a declared Content-Length over the limit is refused before reading', async (t) => {
  let pulls = 0;
  const err = await readBodyLimited(
    request(
      streamOf([10], () => pulls++),
      { 'content-length': '5000' },
    ),
    1000,
  ).catch((e: unknown) => e);
  t.ok(err instanceof HubError && err.status === 413);
  t.equal(pulls <= 1, true, 'no body consumed beyond the stream start');
});

t.test('a lying small Content-Length does not lift the cap', async (t) => {
  const err = await readBodyLimited(request(streamOf([800, 800]), { 'content-length': '10' }), 1000).catch((e: unknown) => e);
  t.ok(err instanceof HubError && err.status === 413);
});
