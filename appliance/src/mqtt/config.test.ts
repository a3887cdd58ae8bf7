import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applianceConfigSchema } from '../config/schema.ts';
import { applianceMqttSchema, mqttSettingsFrom } from './config.ts';

const PIN = 'ab'.repeat(32);

t.test('the [mqtt] section: defaults, files, refusals', async (t) => {
  t.equal(applianceConfigSchema.parse({}).mqtt, undefined, 'off without the section');
  const section = applianceMqttSchema.parse({ url: 'mqtts://broker.lan:8883', tls_fingerprint: PIN });
  t.match(mqttSettingsFrom(section, 'Gate box #1'), {
    topicPrefix: 'alpr',
    discoveryPrefix: 'homeassistant',
    discovery: true,
    verifyTls: true,
    queueMax: 1000,
    tlsFingerprint: `${'AB:'.repeat(31)}AB`,
    deviceName: 'Gate box #1',
    deviceId: 'Gate_box__1',
  });

  const dir = mkdtempSync(join(tmpdir(), 'alpr-mqtt-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'password'), 'from-the-file\n');
  const withFile = mqttSettingsFrom(applianceMqttSchema.parse({ url: 'mqtt://b', password: 'inline', password_file: join(dir, 'password') }));
  t.equal(withFile.password, 'from-the-file', 'the file wins, its trailing newline dropped');
  t.throws(() => mqttSettingsFrom(applianceMqttSchema.parse({ url: 'mqtt://b', password_file: join(dir, 'missing') })), 'a missing file throws');

  for (const [what, value] of [
    ['no url', {}],
    ['an http url', { url: 'http://b' }],
    ['a pin with tls_verify off', { url: 'mqtts://b', tls_fingerprint: PIN, tls_verify: false }],
    ['a pin beside a CA file', { url: 'mqtts://b', tls_fingerprint: PIN, ca_file: '/etc/ca.pem' }],
    ['a pin on plain mqtt', { url: 'mqtt://b', tls_fingerprint: PIN }],
    ['a short pin', { url: 'mqtts://b', tls_fingerprint: 'AB:CD' }],
    ['a wildcard prefix', { url: 'mqtt://b', topic_prefix: 'alpr/#' }],
    ['an unknown key', { url: 'mqtt://b', pasword: 'typo' }],
  ] as const) {
    t.notOk(applianceConfigSchema.safeParse({ mqtt: value }).success, `${what}: refused`);
  }
});
