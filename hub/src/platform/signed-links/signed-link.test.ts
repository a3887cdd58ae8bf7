import t from 'tap';
import { randomBytes } from 'node:crypto';
import { signImageLink, verifyImageLink } from './signed-link.ts';

const key = randomBytes(32);
const hash = 'ab'.repeat(32);
const now = new Date('2026-11-24T10:00:00.000Z');

function parts(link: string) {
  const url = new URL(link);
  return { path: url.pathname, exp: url.searchParams.get('exp') ?? undefined, sig: url.searchParams.get('sig') ?? undefined };
}

t.test('a fresh link verifies until it expires, and only for its own path', async (t) => {
  const link = signImageLink(key, 'https://hub.example.test/', hash, now, 900);
  t.match(link, /^https:\/\/hub\.example\.test\/api\/v1\/images\/(ab){32}\?exp=\d+&sig=[A-Za-z0-9_-]{43}$/);
  const { path, exp, sig } = parts(link);
  t.equal(verifyImageLink(key, path, exp, sig, now), 'ok');
  t.equal(verifyImageLink(key, path, exp, sig, new Date(now.getTime() + 899_000)), 'ok');
  t.equal(verifyImageLink(key, path, exp, sig, new Date(now.getTime() + 900_000)), 'expired');
  t.equal(verifyImageLink(key, path.replace('ab', 'cd'), exp, sig, now), 'invalid', 'another image');
  t.equal(verifyImageLink(key, path, String(Number(exp) + 1), sig, now), 'invalid', 'a stretched expiry');
  t.equal(verifyImageLink(randomBytes(32), path, exp, sig, now), 'invalid', 'another hub secret');
  for (const [e, s] of [
    [undefined, sig],
    [exp, undefined],
    ['-1', sig],
    ['1e9', sig],
    [exp, 'short'],
    [exp, `${sig}=`],
  ]) {
    t.equal(verifyImageLink(key, path, e, s, now), 'invalid', `exp=${String(e)} sig=${String(s)}`);
  }
});
