import t from 'tap';
import { claimCodeCertificateNote, hubCertificateWords } from './hub-certificate.ts';

const SHA = 'AB:'.repeat(31) + 'AB';
const NEXT = 'CD:'.repeat(31) + 'CD';

t.test('the hub certificate line: the fingerprint with TLS, a plain statement without', async (t) => {
  const tls = hubCertificateWords({ sha256: SHA, serves_tls: true, transport: 'https', next_sha256: null });
  t.match(tls, `Hub certificate SHA-256: ${SHA}.`);
  t.match(tls, "types it on the appliance's setup page");
  t.notMatch(tls, 'Announced next');
  t.match(hubCertificateWords({ sha256: SHA, serves_tls: true, transport: 'https', next_sha256: NEXT }), `Announced next (rotation under way): ${NEXT}.`);
  const plain = hubCertificateWords({ sha256: null, serves_tls: false, transport: 'plain_loopback', next_sha256: null });
  t.match(plain, 'plain HTTP on this machine only (loopback)');
  t.notMatch(plain, 'SHA-256:');
  t.match(hubCertificateWords({ sha256: null, serves_tls: false, transport: 'behind_proxy', next_sha256: null }), 'terminated by a proxy');
});

t.test('the note beside a claim code', async (t) => {
  t.equal(claimCodeCertificateNote(SHA), ` With it, type the hub certificate SHA-256 ${SHA} under "Hub certificate fingerprint".`);
  t.equal(claimCodeCertificateNote(null), '');
  t.equal(claimCodeCertificateNote(undefined), '');
});
