import t from 'tap';
import type { MultipartResult } from './multipart.ts';
import { boundaryFrom, headerParams, mediaType, parseMultipart, parseMultipartBody } from './multipart.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const str = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const parts = (result: MultipartResult) => {
  if (!result.ok) throw new Error(`expected ok, got ${result.reason}`);
  return result.parts;
};
const CT = 'multipart/form-data; boundary=XyZ';

t.test('content type helpers', async (t) => {
  t.equal(mediaType('Multipart/Form-Data; boundary=a'), 'multipart/form-data');
  t.equal(mediaType(undefined), '');
  t.equal(boundaryFrom('multipart/form-data; boundary=boundary'), 'boundary');
  t.equal(boundaryFrom('multipart/form-data; charset=utf-8; boundary="a b;c"'), 'a b;c', 'quotes removed, ; inside quotes kept');
  t.equal(boundaryFrom('multipart/form-data;boundary=---------------------------7e13'), '---------------------------7e13');
  t.equal(boundaryFrom('multipart/form-data'), undefined);
  t.equal(boundaryFrom('multipart/form-data; boundary='), undefined);
  t.equal(boundaryFrom('application/xml; boundary=x'), undefined, 'not multipart');
  t.equal(boundaryFrom(`multipart/form-data; boundary=${'b'.repeat(201)}`), undefined);
  t.same(headerParams('form-data; name="ANPR.xml";filename="ANPR.xml";'), { name: 'ANPR.xml', filename: 'ANPR.xml' });
  t.same(headerParams('form-data; NAME=plain ; filename="a\\"b"'), { name: 'plain', filename: 'a"b' });
});

t.test('CRLF body with preamble, epilogue, headers and binary content', async (t) => {
  const binary = Buffer.from([0xff, 0xd8, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff, 0xd9]);
  const body = Buffer.concat([
    Buffer.from('preamble to ignore\r\n--XyZ\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n'),
    Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="img";filename="p.jpg";\r\nContent-Type: image/jpeg\r\nContent-ID: <pic1>\r\nContent-Length: 99999\r\n\r\n',
    ),
    binary,
    Buffer.from('\r\n--XyZ--\r\nepilogue'),
  ]);
  const [meta, img, ...rest] = parts(parseMultipart(body, CT));
  t.same(rest, []);
  t.equal(meta?.name, 'meta');
  t.equal(meta?.contentType, 'application/json');
  t.equal(str(meta?.body ?? new Uint8Array()), '{"a":1}');
  t.equal(img?.name, 'img');
  t.equal(img?.filename, 'p.jpg');
  t.equal(img?.contentId, 'pic1');
  t.equal(img?.headers['content-length'], '99999', 'headers kept, Content-Length not trusted');
  t.same(Buffer.from(img?.body ?? []), binary, 'CR LF -- inside the body is content');
});

t.test('LF-only line endings, a header-less part and a zero-length part', async (t) => {
  const body = enc(
    '--XyZ\nContent-Disposition: form-data; name="a"\n\nalpha\n--XyZ\n\nno headers\n--XyZ\nContent-Disposition: form-data; name="empty"\nContent-Length: 0\n\n\n--XyZ--\n',
  );
  const [a, bare, empty] = parts(parseMultipart(body, CT));
  t.equal(str(a?.body ?? new Uint8Array()), 'alpha');
  t.same(bare?.headers, {});
  t.equal(str(bare?.body ?? new Uint8Array()), 'no headers');
  t.equal(empty?.name, 'empty');
  t.equal(empty?.body.length, 0);
});

t.test('transport padding after a delimiter is allowed', async (t) => {
  const body = enc('--XyZ \t\r\n\r\na\r\n--XyZ  \r\n\r\nb\r\n--XyZ--');
  t.same(
    parts(parseMultipart(body, CT)).map((p) => str(p.body)),
    ['a', 'b'],
  );
});

t.test('an empty part written without its own line break is still empty', async (t) => {
  const body = enc('--XyZ\r\nContent-Disposition: form-data; name="e"\r\n\r\n--XyZ\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n--XyZ--');
  const [e, f] = parts(parseMultipart(body, CT));
  t.equal(e?.body.length, 0);
  t.equal(str(f?.body ?? new Uint8Array()), 'x');
});

t.test('boundary-like lines that are longer than the boundary do not split a part', async (t) => {
  const body = enc('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nline\r\n--XyZW not a delimiter\r\n--XyZ\r\n\r\nb\r\n--XyZ--\r\n');
  const [a, b] = parts(parseMultipart(body, CT));
  t.equal(str(a?.body ?? new Uint8Array()), 'line\r\n--XyZW not a delimiter');
  t.equal(str(b?.body ?? new Uint8Array()), 'b');
});

t.test('folded headers and RFC 5987 file names', async (t) => {
  const body = enc('--XyZ\r\nContent-Disposition: form-data;\r\n name="n"; filename*=UTF-8\'\'%E8%93%9D.jpg\r\n\r\nx\r\n--XyZ--');
  const [p] = parts(parseMultipart(body, CT));
  t.equal(p?.name, 'n');
  t.equal(p?.filename, '蓝.jpg');
});

t.test('malformed bodies are reasons, not exceptions', async (t) => {
  const reason = (result: MultipartResult): string => (result.ok ? 'ok' : result.reason);
  t.match(reason(parseMultipart(enc('--XyZ\r\n\r\nx'), CT)), /closing boundary/);
  t.match(reason(parseMultipart(enc('--XyZ\r\n\r\nx\r\n--XyZ'), CT)), /closing boundary/, 'delimiter at the very end without --');
  t.match(reason(parseMultipart(enc('--XyZ\r\n\r\nx\r\n--XyZ--'), 'multipart/form-data')), /boundary/);
  t.match(reason(parseMultipart(enc('x'), 'text/plain')), /not multipart/);
  t.match(reason(parseMultipart(enc('nothing here'), CT)), /opening boundary/);
  t.match(reason(parseMultipart(enc('--XyZjunk\r\n\r\nx\r\n--XyZ--'), CT)), /malformed/);
  t.match(reason(parseMultipart(enc('--XyZ\r\nContent-Type: text/plain'), CT)), /not terminated/);
  t.match(reason(parseMultipart(new Uint8Array(0), CT)), /opening boundary/);
});

t.test('caps on size, part count and header size', async (t) => {
  const many = `${'--XyZ\r\n\r\nx\r\n'.repeat(5)}--XyZ--`;
  t.equal(parts(parseMultipartBody(enc(many), 'XyZ', { maxParts: 5 })).length, 5);
  const tooMany = parseMultipartBody(enc(many), 'XyZ', { maxParts: 4 });
  t.match(tooMany.ok ? 'ok' : tooMany.reason, /more than 4 parts/);
  const big = parseMultipartBody(enc(many), 'XyZ', { maxBytes: 10 });
  t.match(big.ok ? 'ok' : big.reason, /exceeds the 10-byte cap/);
  const longHeader = parseMultipartBody(enc(`--XyZ\r\nX-Long: ${'a'.repeat(200)}\r\n\r\nx\r\n--XyZ--`), 'XyZ', { maxHeaderBytes: 100 });
  t.match(longHeader.ok ? 'ok' : longHeader.reason, /too large/);
});

t.test('parts are views of the input bytes of a subarray input', async (t) => {
  const framed = enc(`JUNK--XyZ\r\n\r\nabc\r\n--XyZ--`).subarray(4);
  const [p] = parts(parseMultipart(framed, CT));
  t.equal(str(p?.body ?? new Uint8Array()), 'abc');
});

t.test('near-delimiters inside a part stay content; every real ending is a delimiter', async (t) => {
  // `\n--XyZ` followed by anything but CRLF, LF, `--`, space or tab is content, including a
  // lone CR; 10,000 of them in one part (a flood a hostile sender could try) parse exactly.
  const near = ['\n--XyZX', '\n--XyZ\rX', '\n--XyZ-X', '\n--Xy'].join('');
  const flood = near.repeat(10_000);
  const body = enc(
    `--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n${flood}x\r\n--XyZ\r\nContent-Disposition: form-data; name="b"\r\n\r\nB\n--XyZ \r\nContent-Disposition: form-data; name="c"\r\n\r\nC\n--XyZ\t\nContent-Disposition: form-data; name="d"\r\n\r\nD\n--XyZ--`,
  );
  const [a, b, c, d, ...rest] = parts(parseMultipart(body, CT));
  t.same(rest, []);
  t.equal(str(a?.body ?? new Uint8Array()), `${flood}x`, 'the flood is the part body, byte for byte');
  t.same(
    [b, c, d].map((p) => [p?.name, str(p?.body ?? new Uint8Array())]),
    [
      ['b', 'B'],
      ['c', 'C'],
      ['d', 'D'],
    ],
    'LF, space and tab endings are delimiters',
  );
});
