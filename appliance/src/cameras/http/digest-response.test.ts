import t from 'tap';
import { createHash } from 'node:crypto';
import { parseChallenges, pickDigestChallenge } from './challenge.ts';
import { computeDigestResponse, digestAuthorization, basicAuthorization, formatNonceCount } from './digest-response.ts';
import type { DigestInput } from './digest-response.ts';

// RFC 7616 §3.9.1 example: same inputs for MD5 and SHA-256.
const rfc7616 = {
  username: 'Mufasa',
  password: 'Circle of Life',
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  method: 'GET',
  uri: '/dir/index.html',
  qop: 'auth',
  nc: 1,
} as const;

const hex = (algorithm: string, s: string): string => createHash(algorithm).update(s).digest('hex');

const vectors: Array<{ name: string; input: DigestInput; expected: string }> = [
  { name: 'RFC 7616 §3.9.1 MD5', input: { ...rfc7616, algorithm: 'MD5' }, expected: '8ca523f5e9506fed4657c9700eebdbec' },
  {
    name: 'RFC 7616 §3.9.1 SHA-256',
    input: { ...rfc7616, algorithm: 'SHA-256' },
    expected: '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
  },
  {
    name: 'RFC 2617 §3.5 MD5',
    input: {
      algorithm: 'MD5',
      username: 'Mufasa',
      password: 'Circle Of Life',
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      cnonce: '0a4f113b',
      method: 'GET',
      uri: '/dir/index.html',
      qop: 'auth',
      nc: 1,
    },
    expected: '6629fae49393a05397450978507c4ef1',
  },
];

t.test('RFC example vectors', async (t) => {
  for (const v of vectors) t.equal(computeDigestResponse(v.input), v.expected, v.name);
});

t.test('-sess, auth-int and RFC 2069 variants follow the RFC formulas', async (t) => {
  const md5 = (s: string): string => hex('md5', s);
  const base = { ...rfc7616, algorithm: 'MD5' as const };
  const ha1 = md5(`${base.username}:${base.realm}:${base.password}`);
  const ha1Sess = md5(`${ha1}:${base.nonce}:${base.cnonce}`);
  const ha2 = md5(`GET:${base.uri}`);
  t.equal(
    computeDigestResponse({ ...base, algorithm: 'MD5-sess' }),
    md5(`${ha1Sess}:${base.nonce}:00000001:${base.cnonce}:auth:${ha2}`),
    'MD5-sess rehashes HA1 with nonce and cnonce',
  );
  const sha = (s: string): string => hex('sha256', s);
  const sha1 = sha(`${base.username}:${base.realm}:${base.password}`);
  const shaSess = sha(`${sha1}:${base.nonce}:${base.cnonce}`);
  t.equal(
    computeDigestResponse({ ...base, algorithm: 'SHA-256-sess' }),
    sha(`${shaSess}:${base.nonce}:00000001:${base.cnonce}:auth:${sha(`GET:${base.uri}`)}`),
    'SHA-256-sess',
  );
  const body = '<AfterTime/>';
  t.equal(
    computeDigestResponse({ ...base, method: 'POST', qop: 'auth-int', entityBody: body }),
    md5(`${ha1}:${base.nonce}:00000001:${base.cnonce}:auth-int:${md5(`POST:${base.uri}:${md5(body)}`)}`),
    'auth-int hashes the body into A2',
  );
  const { qop: _qop, ...noQop } = base;
  t.equal(computeDigestResponse(noQop), md5(`${ha1}:${base.nonce}:${ha2}`), 'no qop: RFC 2069 form');
  t.equal(formatNonceCount(255), '000000ff');
});

t.test('challenge parsing', async (t) => {
  const header =
    'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, ' +
    'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", ' +
    'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, ' +
    'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", Basic realm="cam"';
  const all = parseChallenges(header);
  t.same(
    all.map((c) => [c.scheme, c.params.algorithm]),
    [
      ['digest', 'SHA-256'],
      ['digest', 'MD5'],
      ['basic', undefined],
    ],
  );
  const picked = pickDigestChallenge(all);
  t.equal(picked?.algorithm, 'SHA-256', 'strongest algorithm wins');
  t.equal(picked?.qop, 'auth', 'auth preferred over auth-int');
  t.equal(picked?.opaque, 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS');

  const rows: Array<[string, Partial<{ algorithm: string; stale: boolean; qop: string; realm: string }> | undefined]> = [
    ['Digest realm="a", nonce="n"', { algorithm: 'MD5', stale: false, realm: 'a' }],
    ['digest REALM="a", NONCE=n, algorithm=md5-SESS, stale=TRUE', { algorithm: 'MD5-sess', stale: true }],
    ['Digest realm="a \\"quoted\\"", nonce="n", qop="auth-int"', { realm: 'a "quoted"', qop: 'auth-int' }],
    ['Digest realm="a", nonce="n", algorithm=SHA-1', undefined],
    ['Digest realm="a", nonce="n", qop="auth-conf"', undefined],
    ['Digest realm="a"', undefined],
    ['Basic realm="x"', undefined],
  ];
  for (const [value, expected] of rows) {
    const got = pickDigestChallenge(parseChallenges(value));
    if (expected === undefined) t.equal(got, undefined, value);
    else t.match(got, expected, value);
  }
  t.same(
    parseChallenges(['Basic realm="x"', 'Negotiate abc==']).map((c) => c.scheme),
    ['basic', 'negotiate'],
    'several header values',
  );
  t.same(parseChallenges(undefined), []);
});

t.test('Authorization header carries every field the server needs', async (t) => {
  const challenge = pickDigestChallenge(
    parseChallenges('Digest realm="http-auth@example.org", qop="auth", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="op"'),
  );
  if (!challenge) throw new Error('challenge expected');
  const value = digestAuthorization({ challenge, ...rfc7616 });
  const params = parseChallenges(value)[0]?.params ?? {};
  t.match(params, {
    username: 'Mufasa',
    realm: 'http-auth@example.org',
    uri: '/dir/index.html',
    response: '8ca523f5e9506fed4657c9700eebdbec',
    opaque: 'op',
    qop: 'auth',
    nc: '00000001',
    cnonce: rfc7616.cnonce,
    algorithm: 'MD5',
  });
  const hashed = digestAuthorization({ challenge: { ...challenge, userhash: true }, ...rfc7616 });
  t.equal(parseChallenges(hashed)[0]?.params.username, hex('md5', 'Mufasa:http-auth@example.org'), 'userhash');
  t.equal(basicAuthorization('Aladdin', 'open sesame'), 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', 'RFC 7617 example');
});
