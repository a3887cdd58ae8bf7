import t from 'tap';
import {
  asReached,
  createdText,
  getSnapshotUri,
  parseFirstProfileToken,
  parseMediaAddress,
  parseSnapshotUri,
  parseSystemTime,
  passwordDigest,
} from './soap.ts';

const env = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:tds="http://www.onvif.org/ver10/device/wsdl" xmlns:trt="http://www.onvif.org/ver10/media/wsdl" xmlns:tt="http://www.onvif.org/ver10/schema" xmlns:ter="http://www.onvif.org/ver10/error"><env:Body>${body}</env:Body></env:Envelope>`;

t.test('WS-Security digest: the worked example of the ONVIF programmer guide', async (t) => {
  // Nonce, Created and password from the guide's UsernameToken example, and the digest it prints.
  const nonce = Buffer.from('LKqI6G/AikKCQrN0zqZFlg==', 'base64');
  t.equal(passwordDigest(nonce, '2010-09-16T07:50:45Z', 'userpassword'), 'tuOSpGlFlIXsozq4HFNeeGeFLEI=');
  t.equal(createdText(new Date('2010-09-16T07:50:45.678Z')), '2010-09-16T07:50:45Z', 'Created is to the second');
});

t.test('a request escapes what it carries', async (t) => {
  const xml = getSnapshotUri('a<b&"c', { username: 'ad<min', password: 'p', nonce: new Uint8Array(16), created: new Date(0) });
  t.match(xml, /<ProfileToken>a&lt;b&amp;&quot;c<\/ProfileToken>/);
  t.match(xml, /<wsse:Username>ad&lt;min<\/wsse:Username>/);
  t.notMatch(xml, /ad<min/);
});

t.test('answers as cameras write them', async (t) => {
  const clock = parseSystemTime(
    env(
      '<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:UTCDateTime><tt:Time><tt:Hour>3</tt:Hour><tt:Minute>4</tt:Minute><tt:Second>5</tt:Second></tt:Time><tt:Date><tt:Year>2031</tt:Year><tt:Month>2</tt:Month><tt:Day>28</tt:Day></tt:Date></tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>',
    ),
  );
  t.same(clock, { ok: true, value: new Date('2031-02-28T03:04:05Z') });
  t.same(
    parseSystemTime(env('<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime/></tds:GetSystemDateAndTimeResponse>')),
    { ok: true, value: undefined },
    'a camera that does not say: no offset',
  );
  t.same(
    parseSystemTime(
      env(
        '<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:UTCDateTime><tt:Time><tt:Hour>0</tt:Hour><tt:Minute>0</tt:Minute><tt:Second>0</tt:Second></tt:Time><tt:Date><tt:Year>1970</tt:Year><tt:Month>1</tt:Month><tt:Day>1</tt:Day></tt:Date></tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>',
      ),
    ),
    { ok: true, value: undefined },
    'a factory-reset clock at 1970 is not believed',
  );
  t.same(
    parseMediaAddress(
      env(
        '<tds:GetCapabilitiesResponse><tds:Capabilities><tt:Media><tt:XAddr> http://192.168.1.64/onvif/Media </tt:XAddr></tt:Media></tds:Capabilities></tds:GetCapabilitiesResponse>',
      ),
    ),
    {
      ok: true,
      value: 'http://192.168.1.64/onvif/Media',
    },
  );
  t.same(
    parseFirstProfileToken(
      env(
        '<trt:GetProfilesResponse><trt:Profiles token="main" fixed="true"><tt:Name>mainStream</tt:Name></trt:Profiles><trt:Profiles token="sub"/></trt:GetProfilesResponse>',
      ),
    ),
    {
      ok: true,
      value: 'main',
    },
  );
  t.same(
    parseFirstProfileToken(env('<trt:GetProfilesResponse><trt:Profiles token="only"><tt:Name>x</tt:Name></trt:Profiles></trt:GetProfilesResponse>')),
    { ok: true, value: 'only' },
    'one profile',
  );
  t.match(parseFirstProfileToken(env('<trt:GetProfilesResponse/>')), { ok: false, reason: /no media profile/ });
  t.same(
    parseSnapshotUri(
      env(
        '<trt:GetSnapshotUriResponse><trt:MediaUri><tt:Uri>http://192.168.1.64/onvif-http/snapshot?Profile_1</tt:Uri></trt:MediaUri></trt:GetSnapshotUriResponse>',
      ),
    ),
    {
      ok: true,
      value: 'http://192.168.1.64/onvif-http/snapshot?Profile_1',
    },
  );
});

t.test('faults and hostile answers', async (t) => {
  const refused = parseSnapshotUri(
    env(
      '<env:Fault><env:Code><env:Value>env:Sender</env:Value><env:Subcode><env:Value>ter:NotAuthorized</env:Value></env:Subcode></env:Code><env:Reason><env:Text xml:lang="en">Sender not Authorized</env:Text></env:Reason></env:Fault>',
    ),
  );
  t.same(refused, { ok: false, reason: 'SOAP fault Sender/NotAuthorized: Sender not Authorized', notAuthorized: true });
  t.match(parseSnapshotUri('<html><body>404</body></html>'), { ok: false, reason: /not a SOAP answer/, notAuthorized: false });
  t.match(parseSnapshotUri('<!DOCTYPE x [<!ENTITY a "b">]><x/>'), { ok: false, reason: /DOCTYPE/ });
  t.match(parseSnapshotUri(`<a>${'x'.repeat(300 * 1024)}</a>`), { ok: false, reason: /exceeds/ }, 'bounded');
  t.match(parseSnapshotUri(`${'<a>'.repeat(100)}${'</a>'.repeat(100)}`), { ok: false }, 'deep nesting refused');
  t.match(parseSnapshotUri('not xml at all \u0000'), { ok: false });
  t.match(parseMediaAddress(env('<tds:GetCapabilitiesResponse/>')), { ok: false, reason: /no media service/ });
});

t.test('a URL the camera gives, as this device reaches it', async (t) => {
  const asked = 'http://127.0.0.1:8091/onvif/device_service';
  t.equal(
    asReached('http://192.168.1.64/onvif-http/snapshot?Profile_1', asked),
    'http://127.0.0.1:8091/onvif-http/snapshot?Profile_1',
    'inside address behind NAT: our host and port',
  );
  t.equal(asReached('http://127.0.0.1:8092/snap.jpg', asked), 'http://127.0.0.1:8092/snap.jpg', 'same host, another port: kept');
  t.equal(asReached('/snap.jpg', asked), 'http://127.0.0.1:8091/snap.jpg', 'relative');
  t.equal(asReached('http://user:pw@127.0.0.1:8091/snap.jpg', asked), 'http://127.0.0.1:8091/snap.jpg', 'credentials in the URL dropped');
  t.equal(asReached('file:///etc/passwd', asked), undefined, 'only http(s)');
  t.equal(asReached('javascript:alert(1)', asked), undefined);
  t.equal(asReached('http://[::1', asked), undefined, 'unparseable');
});
