/**
 * The hub certificate line on the collectors page (docs/security.md "Certificate pinning") in
 * a real browser (Chromium via playwright-core) on a real hub process: the page script asks
 * the hub and writes what the installer needs beside the claim codes. This hub listens on
 * loopback without certificate files, so it serves plain HTTP and the page must say so
 * instead of showing a fingerprint; the TLS wording is table-tested in
 * hub/src/ui/client/hub-certificate.test.ts and the answers in hub/src/admin/hub-certificate-routes.test.ts.
 */
import t from 'tap';
import { totpCode } from '../../hub/src/auth/totp.ts';
import { launchChromium } from '../browser/chromium.ts';
import { hubUnderTest } from './hub-under-test.ts';
import { createUserWithCli } from './users-over-http.ts';

const PASSWORD = 'hub certificate e2e correct horse';

t.test('the collectors page says what the installer confirms: here, that the hub serves plain HTTP', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await hubUnderTest(t, { beforeStart: (env) => createUserWithCli(env, 'admin@cert.test', 'admin', PASSWORD) });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${hub.url}/admin/collectors`);
  await page.fill('#email', 'admin@cert.test');
  await page.fill('#password', PASSWORD);
  await page.press('#password', 'Enter');
  await page.waitForSelector('#enroll-step', { state: 'visible' });
  const key = ((await page.textContent('#manual-key')) ?? '').replace(/\s/g, '');
  await page.fill('#enroll-code', await totpCode(key, new Date()));
  await page.press('#enroll-code', 'Enter');
  await page.waitForSelector('#codes-step', { state: 'visible' });
  await page.check('#codes-saved');
  await page.click('#codes-step button[type="submit"]');
  await page.waitForURL(/\/admin\/collectors$/);

  await page.waitForFunction(() => (document.querySelector('#create-form [data-hub-certificate]')?.textContent ?? '') !== '');
  const line = (await page.textContent('#create-form [data-hub-certificate]')) ?? '';
  t.match(line, 'plain HTTP on this machine only (loopback)', 'beside the create form');
  t.notMatch(line, 'SHA-256:', 'no fingerprint to confirm');
  t.equal(await page.getAttribute('#create-form [data-hub-certificate]', 'data-serves-tls'), 'false');

  await page.fill('#site-name', 'Certificate site');
  await page.press('#site-name', 'Enter');
  await page.waitForSelector('#secret', { state: 'visible' });
  t.match(await page.textContent('#secret-value'), /^ALPR-/, 'the claim code');
  t.notMatch((await page.textContent('#secret-help')) ?? '', 'SHA-256', 'its help names no fingerprint on a plain-HTTP hub');
});
