/**
 * Issue 10 section 3: "keys travel only over TLS 1.3". A real hub process given a
 * certificate and key serves HTTPS itself and refuses any TLS below 1.3; a collector call
 * over TLS 1.3 reaches the API-key check.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { startHubProcess } from '../../scripts/demo/processes.ts';
import { freePort } from '../e2e/hub-under-test.ts';
import { HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';

const run = promisify(execFile);

function post(
  port: number,
  ca: Buffer,
  tls: { minVersion: 'TLSv1.2' | 'TLSv1.3'; maxVersion: 'TLSv1.2' | 'TLSv1.3' },
): Promise<{ status: number; protocol: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: HEARTBEAT_PATH, method: 'POST', ca, ...tls, headers: { 'content-type': 'application/json' } },
      (res) => {
        const protocol = (res.socket as unknown as { getProtocol(): string }).getProtocol();
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, protocol }));
      },
    );
    req.on('error', (err) => resolve({ error: err.message }));
    req.end('{}');
  });
}

t.test('the hub serves HTTPS with TLS 1.3 minimum when given a certificate and key', { timeout: 180_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-hub-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  const port = await freePort();
  const hub = await startHubProcess({
    env: {
      DATABASE_URL: '',
      HUB_DATA_DIR: join(dir, 'hub'),
      HUB_HOST: '127.0.0.1',
      HUB_PORT: String(port),
      HUB_LOG_LEVEL: 'info',
      HUB_TLS_CERT_FILE: cert,
      HUB_TLS_KEY_FILE: key,
    },
    timeoutMs: 120_000,
  });
  t.teardown(() => hub.stop());
  const ca = await readFile(cert);
  const modern = await post(port, ca, { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
  t.same(modern, { status: 401, protocol: 'TLSv1.3' }, 'TLS 1.3: the collector API answers (401 without a key)');
  const old = await post(port, ca, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
  t.ok('error' in old, `TLS 1.2 refused: ${'error' in old ? old.error : JSON.stringify(old)}`);
  t.match(hub.output(), /https:\/\/127\.0\.0\.1/, 'the log says https');
});

t.test('certificate and key go together', async (t) => {
  const { loadHubConfig } = await import('../../hub/src/platform/config/hub-config.ts');
  t.throws(() => loadHubConfig({ HUB_TLS_CERT_FILE: '/x/cert.pem' }), /go together/);
  t.match(loadHubConfig({ HUB_TLS_CERT_FILE: '/c', HUB_TLS_KEY_FILE: '/k', HUB_PORT: '9443' }), {
    tls: { certFile: '/c', keyFile: '/k' },
    publicUrl: 'https://127.0.0.1:9443',
  });
});
