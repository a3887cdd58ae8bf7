import t from 'tap';
import { checkTotp, totpCode, totpStep, totpUri } from './totp.ts';

const RFC_SECRET_ASCII = new Uint8Array(Buffer.from('12345678901234567890', 'ascii'));
/** Base32 of the same 20 bytes, as an authenticator app would be given it. */
const RFC_SECRET_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

// RFC 6238 Appendix B, SHA-1 column (8 digits); our 6-digit codes are the last 6.
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

t.test('RFC 6238 SHA-1 vectors, 8 and 6 digits', async (t) => {
  for (const [seconds, code] of VECTORS) {
    const at = new Date(seconds * 1000);
    t.equal(await totpCode(RFC_SECRET_ASCII, at, 8), code, `T=${seconds} (8 digits)`);
    t.equal(await totpCode(RFC_SECRET_ASCII, at), code.slice(2), `T=${seconds} (6 digits)`);
    t.equal(await totpCode(RFC_SECRET_BASE32, at), code.slice(2), `T=${seconds} base32 secret`);
  }
});

t.test('window of one step either side, not two', async (t) => {
  const now = new Date(1_234_567_890_000);
  const step = totpStep(now);
  for (const offset of [-1, 0, 1]) {
    const code = await totpCode(RFC_SECRET_BASE32, new Date(now.getTime() + offset * 30_000));
    t.same(await checkTotp(RFC_SECRET_BASE32, code, now, null), { valid: true, step: step + offset }, `offset ${offset}`);
  }
  for (const offset of [-2, 2]) {
    const code = await totpCode(RFC_SECRET_BASE32, new Date(now.getTime() + offset * 30_000));
    t.same(await checkTotp(RFC_SECRET_BASE32, code, now, null), { valid: false, reason: 'mismatch' }, `offset ${offset}`);
  }
});

t.test('replay: the last used step and older are refused', async (t) => {
  const now = new Date(1_111_111_111_000);
  const code = await totpCode(RFC_SECRET_BASE32, now);
  const first = await checkTotp(RFC_SECRET_BASE32, code, now, null);
  t.ok(first.valid);
  const step = first.valid ? first.step : -1;
  t.same(await checkTotp(RFC_SECRET_BASE32, code, now, step), { valid: false, reason: 'replay' }, 'same code again');
  const previous = await totpCode(RFC_SECRET_BASE32, new Date(now.getTime() - 30_000));
  t.same(await checkTotp(RFC_SECRET_BASE32, previous, now, step), { valid: false, reason: 'replay' }, 'older code after a newer one');
  const next = await totpCode(RFC_SECRET_BASE32, new Date(now.getTime() + 30_000));
  t.same(await checkTotp(RFC_SECRET_BASE32, next, new Date(now.getTime() + 30_000), step), { valid: true, step: step + 1 }, 'next step works');
});

t.test('malformed codes are refused before any HMAC', async (t) => {
  for (const code of ['', '12345', '1234567', 'abcdef', '12 345']) {
    t.same(await checkTotp(RFC_SECRET_BASE32, code, new Date(0), null), { valid: false, reason: 'format' }, JSON.stringify(code));
  }
});

t.test('otpauth URI names issuer and account', async (t) => {
  const uri = totpUri(RFC_SECRET_BASE32, 'alice@example.test');
  t.match(uri, /^otpauth:\/\/totp\/ALPR%20Hub:alice%40example\.test\?/);
  const params = new URL(uri).searchParams;
  t.equal(params.get('secret'), RFC_SECRET_BASE32);
  t.equal(params.get('issuer'), 'ALPR Hub');
});
