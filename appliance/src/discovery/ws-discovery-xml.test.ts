import t from 'tap';
import { parseProbeMatches, probeMessage } from './ws-discovery-xml.ts';

const ID = 'urn:uuid:11111111-2222-4333-8444-555555555555';

const answer = (relatesTo: string, match: string, action = 'http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches'): string =>
  `<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:wsdd="http://schemas.xmlsoap.org/ws/2005/04/discovery">
<SOAP-ENV:Header><wsa:MessageID>uuid:x</wsa:MessageID><wsa:RelatesTo>${relatesTo}</wsa:RelatesTo><wsa:Action>${action}</wsa:Action></SOAP-ENV:Header>
<SOAP-ENV:Body><wsdd:ProbeMatches>${match}</wsdd:ProbeMatches></SOAP-ENV:Body></SOAP-ENV:Envelope>`;

const hikMatch = `<wsdd:ProbeMatch><wsa:EndpointReference><wsa:Address>urn:uuid:544f4e56-4f4e-4f4e-8000-bc5e33aabbcc</wsa:Address></wsa:EndpointReference>
<wsdd:Types>dn:NetworkVideoTransmitter tds:Device</wsdd:Types>
<wsdd:Scopes>onvif://www.onvif.org/type/video_encoder onvif://www.onvif.org/Profile/Streaming onvif://www.onvif.org/hardware/DS-2CD4A26FWD-IZS onvif://www.onvif.org/name/HIKVISION%20DS-2CD4A26FWD-IZS onvif://www.onvif.org/location/city/hangzhou</wsdd:Scopes>
<wsdd:XAddrs>http://192.168.1.64/onvif/device_service http://[fe80::1]/onvif/device_service</wsdd:XAddrs><wsdd:MetadataVersion>10</wsdd:MetadataVersion></wsdd:ProbeMatch>`;

t.test('the probe asks for ONVIF video transmitters under our MessageID', async (t) => {
  const xml = probeMessage(ID);
  t.match(xml, /<a:MessageID>urn:uuid:11111111-2222-4333-8444-555555555555<\/a:MessageID>/);
  t.match(xml, /<d:Types>dn:NetworkVideoTransmitter<\/d:Types>/);
  t.match(xml, /urn:schemas-xmlsoap-org:ws:2005:04:discovery/);
});

t.test('a camera answer: endpoint, service URLs, manufacturer and model from the scopes', async (t) => {
  t.same(parseProbeMatches(answer(ID, hikMatch), ID), [
    {
      endpoint: 'urn:uuid:544f4e56-4f4e-4f4e-8000-bc5e33aabbcc',
      xaddrs: ['http://192.168.1.64/onvif/device_service', 'http://[fe80::1]/onvif/device_service'],
      manufacturer: 'HIKVISION',
      model: 'DS-2CD4A26FWD-IZS',
      name: 'HIKVISION DS-2CD4A26FWD-IZS',
    },
  ]);
  const withManufacturer = hikMatch.replace('onvif://www.onvif.org/type/video_encoder', 'onvif://www.onvif.org/manufacturer/Acme%20Vision');
  t.equal(parseProbeMatches(answer(ID, withManufacturer), ID)?.[0]?.manufacturer, 'Acme Vision', 'an explicit manufacturer scope wins');
});

t.test('answers to someone else, other actions and hostile documents are not ours', async (t) => {
  t.equal(parseProbeMatches(answer('urn:uuid:other', hikMatch), ID), undefined, "another client's probe");
  t.equal(parseProbeMatches(answer(ID, hikMatch, 'http://schemas.xmlsoap.org/ws/2005/04/discovery/Hello'), ID), undefined);
  t.equal(parseProbeMatches('not xml', ID), undefined);
  t.equal(parseProbeMatches(`<!DOCTYPE x [<!ENTITY a "b">]>${answer(ID, hikMatch)}`, ID), undefined, 'DTD refused');
  t.equal(parseProbeMatches(answer(ID, hikMatch).padEnd(70_000, ' '), ID), undefined, 'larger than a datagram');
  const nasty = hikMatch
    .replace('http://192.168.1.64/onvif/device_service', 'javascript:alert(1) file:///etc/passwd http://192.168.1.65/x')
    .replace('HIKVISION%20DS', '%E2%80%AEEVIL%07%20DS')
    .replace('hardware/DS-2CD4A26FWD-IZS', 'hardware/%ZZbad');
  const [parsed] = parseProbeMatches(answer(ID, nasty), ID) ?? [];
  t.same(parsed?.xaddrs, ['http://192.168.1.65/x', 'http://[fe80::1]/onvif/device_service'], 'only http(s) service URLs');
  t.equal(parsed?.manufacturer, 'EVIL', 'control and format characters removed');
  t.equal(parsed?.model, '%ZZbad', 'a broken escape is kept as text, not thrown');
  t.same(parseProbeMatches(answer(ID, '<wsdd:ProbeMatch><wsdd:Types>x</wsdd:Types></wsdd:ProbeMatch>'), ID), [], 'a match with no address is skipped');
});

t.test('one answer cannot flood the list: at most 16 matches, fields cut to 100 characters', async (t) => {
  const many = Array.from(
    { length: 40 },
    (_, i) =>
      `<wsdd:ProbeMatch><wsa:EndpointReference><wsa:Address>urn:uuid:${i}</wsa:Address></wsa:EndpointReference><wsdd:Scopes>onvif://www.onvif.org/hardware/${'M'.repeat(500)}</wsdd:Scopes><wsdd:XAddrs>http://10.0.0.${i}/</wsdd:XAddrs></wsdd:ProbeMatch>`,
  ).join('');
  const parsed = parseProbeMatches(answer(ID, many), ID) ?? [];
  t.equal(parsed.length, 16);
  t.equal(parsed[0]?.model?.length, 100);
});
