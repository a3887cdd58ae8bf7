import t from 'tap';
import QRCode from 'qrcode';
import { decodeQrDataUri } from './qr-decode.test-helper.ts';
import { qrPngDataUri } from './qr.ts';
import { totpUri } from './totp.ts';

t.test('the 2FA QR code decodes back to the otpauth URI', async (t) => {
  const uri = totpUri('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'alice@example.test');
  const dataUri = await qrPngDataUri(uri);
  t.match(dataUri, /^data:image\/png;base64,iVBORw0KGgo/, 'a PNG data URI');
  const decoded = decodeQrDataUri(dataUri);
  t.equal(decoded?.text, uri, 'a QR reader gets the exact URI back');
  // Level M: the smallest version that holds the URI; 17 + 4 x version modules, a 4-module quiet zone each side, 6 px each.
  const version = QRCode.create(uri, { errorCorrectionLevel: 'M' }).version;
  t.ok(version >= 1 && version <= 10, `version ${version} for a ${uri.length}-byte URI`);
  t.equal(decoded?.width, (17 + 4 * version + 8) * 6, 'PNG at 6 px per module with a 4-module quiet zone');
  t.equal(decoded?.height, decoded?.width);
});

t.test('long and non-ASCII account names still decode', async (t) => {
  for (const account of ['a@b.c', `${'x'.repeat(200)}@example.test`, 'zoë.ünïcode@example.test']) {
    const uri = totpUri('JBSWY3DPEHPK3PXP', account);
    t.equal(decodeQrDataUri(await qrPngDataUri(uri))?.text, uri, `${account.length}-char account`);
  }
});

t.test('the decoder is not fooled by a PNG without a QR code', async (t) => {
  // A blank white 40x40 PNG: proves the helper can say "no code", so the checks above can fail.
  const { PNG } = await import('pngjs');
  const blank = new PNG({ width: 40, height: 40 });
  blank.data.fill(255);
  t.equal(decodeQrDataUri(`data:image/png;base64,${PNG.sync.write(blank).toString('base64')}`), null);
  t.equal(decodeQrDataUri('data:image/gif;base64,R0lGOD'), null);
});
