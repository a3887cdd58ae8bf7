import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { certificateSerial, selfSignedCertificate } from './self-signed.ts';

t.test('the serial is a positive, minimal DER INTEGER whatever the random bytes', async (t) => {
  for (const first of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
    const serial = certificateSerial(Uint8Array.from([first, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc]));
    const lead = serial[0] ?? 0;
    t.ok(lead >= 0x01 && lead <= 0x7f, `first byte 0x${first.toString(16)} -> 0x${lead.toString(16)}`);
    t.equal(serial.length, 8);
  }
});

t.test('the certificate parses, names 127.0.0.1 and localhost, and verifies with its own key', async (t) => {
  // 300 certificates: the old serial rule produced an unparseable one about once in 256.
  for (let i = 0; i < 300; i++) {
    const { cert } = selfSignedCertificate('127.0.0.1', 1);
    const x509 = new X509Certificate(cert);
    if (!x509.verify(x509.publicKey)) t.fail(`certificate ${i} does not verify`);
    if (i === 0) {
      t.match(x509.subjectAltName, /IP Address:127\.0\.0\.1/);
      t.match(x509.subjectAltName, /DNS:localhost/);
      t.match(x509.subject, /CN=alpr-simulator/);
    }
  }
  t.pass('300 certificates parsed and verified');
});
