/**
 * TLS by default (docs/security.md "TLS by default"): a real hub process told to listen on
 * 0.0.0.0 with no certificate generates one, serves TLS 1.3 only (a TLS 1.2 client is
 * refused), prints the certificate's SHA-256, and serves the same certificate after a
 * restart. The test connects to 127.0.0.1 only.
 */
import t from 'tap';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { startHubProcess } from '../../scripts/demo/processes.ts';
import { loadHubConfig } from '../../hub/src/platform/config/hub-config.ts';
import { certificateSha256 } from '../../hub/src/tls/fingerprint.ts';
import { GENERATED_CERT_FILE, GENERATED_KEY_FILE } from '../../hub/src/tls/material.ts';

type Handshake = { protocol: string | null; sha256: string } | { error: string };

function handshake(port: number, version: 'TLSv1.2' | 'TLSv1.3'): Promise<Handshake> {
  return new Promise((resolve) => {
    // The generated certificate is self-signed: this client checks it by fingerprint below.
    const socket: TLSSocket = connect({ host: '127.0.0.1', port, minVersion: version, maxVersion: version, rejectUnauthorized: false }, () => {
      resolve({ protocol: socket.getProtocol(), sha256: socket.getPeerCertificate().fingerprint256 });
      socket.end();
    });
    socket.on('error', (err) => resolve({ error: err.message }));
  });
}

t.test('a hub on 0.0.0.0 without a certificate generates one, keeps it, and speaks TLS 1.3 only', { timeout: 240_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-hub-tls-default-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: process.env['DATABASE_URL'] ?? '', HUB_DATA_DIR: dir, HUB_HOST: '0.0.0.0', HUB_PORT: '0', HUB_LOG_LEVEL: 'info' };

  const first = await startHubProcess({ env, timeoutMs: 120_000 });
  const modern = await handshake(first.port, 'TLSv1.3');
  const old = await handshake(first.port, 'TLSv1.2');
  await first.stop();
  const certPem = await readFile(join(dir, GENERATED_CERT_FILE));
  const sha256 = certificateSha256(certPem);
  t.same(modern, { protocol: 'TLSv1.3', sha256 }, 'TLS 1.3 handshake, with the certificate kept in the data folder');
  t.ok('error' in old, `a TLS 1.2 client is refused (${'error' in old ? old.error : 'it connected'})`);
  t.match(first.output(), `hub certificate SHA-256: ${sha256}`, 'the fingerprint is printed at start');
  t.equal((await stat(join(dir, GENERATED_KEY_FILE))).mode & 0o777, 0o600, 'the private key is readable by the hub user only');

  const second = await startHubProcess({ env, timeoutMs: 120_000 });
  t.teardown(() => second.stop());
  t.same(await handshake(second.port, 'TLSv1.3'), { protocol: 'TLSv1.3', sha256 }, 'after a restart: the same certificate, so pins still match');
  t.match(second.output(), `hub certificate SHA-256: ${sha256}`);
});

t.test('transport choice at start', async (t) => {
  t.equal(loadHubConfig({}).transport, 'plain_loopback', 'npm start: loopback stays plain HTTP');
  t.equal(loadHubConfig({ HUB_HOST: '127.0.0.1' }).publicUrl, 'http://127.0.0.1:8443');
  t.equal(loadHubConfig({ HUB_HOST: 'localhost' }).transport, 'plain_loopback');
  t.equal(loadHubConfig({ HUB_HOST: '::1' }).transport, 'plain_loopback');
  t.match(loadHubConfig({ HUB_HOST: '0.0.0.0' }), { transport: 'https', publicUrl: 'https://0.0.0.0:8443' }, 'any other host: HTTPS');
  t.equal(loadHubConfig({ HUB_HOST: '::' }).transport, 'https');
  t.equal(loadHubConfig({ HUB_HOST: '192.168.1.20' }).transport, 'https');
  t.equal(loadHubConfig({ HUB_HOST: '127.0.0.1', HUB_TLS_CERT_FILE: '/c', HUB_TLS_KEY_FILE: '/k' }).transport, 'https', 'given files: HTTPS on loopback too');
  t.throws(
    () => loadHubConfig({ HUB_HOST: '0.0.0.0', HUB_BEHIND_TLS_PROXY: 'true' }),
    /HUB_BEHIND_TLS_PROXY=true needs HUB_TRUSTED_PROXIES/,
    'behind a proxy without trusted proxies: refused',
  );
  t.throws(
    () => loadHubConfig({ HUB_BEHIND_TLS_PROXY: 'true', HUB_TRUSTED_PROXIES: '10.0.0.2', HUB_TLS_CERT_FILE: '/c', HUB_TLS_KEY_FILE: '/k' }),
    /exclude each other/,
  );
  t.match(loadHubConfig({ HUB_HOST: '0.0.0.0', HUB_BEHIND_TLS_PROXY: 'true', HUB_TRUSTED_PROXIES: '10.0.0.2' }), {
    transport: 'behind_proxy',
    trustedProxies: ['10.0.0.2'],
  });
});

t.test('a hub told it is behind a proxy, with no trusted proxies, does not start', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-hub-tls-proxy-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: '', HUB_DATA_DIR: dir, HUB_HOST: '0.0.0.0', HUB_PORT: '0', HUB_BEHIND_TLS_PROXY: 'true', HUB_TRUSTED_PROXIES: '' };
  await t.rejects(startHubProcess({ env, timeoutMs: 50_000 }), /HUB_BEHIND_TLS_PROXY=true needs HUB_TRUSTED_PROXIES/);
});
