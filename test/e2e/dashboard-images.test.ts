/**
 * Issue 37 item 6 in a real browser (Chromium via playwright-core) on a real hub with a real
 * appliance: a camera posts plates with the simulators' drawn pictures (crop and scene), one
 * on a watchlist. Every <img> on the live page (the alert and the feed), the search results
 * and the detection page must decode (`naturalWidth` above 0), and the evidence export of the
 * detection carries pictures that decode. The check itself is shown to catch a JPEG header
 * in front of random bytes, what the simulators sent before.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import t from 'tap';
import { totpCode } from '../../hub/src/auth/totp.ts';
import { readZipFiles } from '../../hub/src/evidence/read-zip.ts';
import { jpegLike } from '../../hub/src/ingest/uploads.test-helper.ts';
import { plateCropJpeg, sceneJpeg } from '../../scripts/simulators/draw-plate.ts';
import { launchChromium } from '../browser/chromium.ts';
import { broken, imagesOn } from '../browser/images.ts';
import { applianceUnderTest, hubLinkedToml } from './appliance-under-test.ts';
import { pushPlateWithImages } from './camera-push.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli } from './users-over-http.ts';

const PASSWORD = 'images e2e correct horse battery';
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const WATCHED = 'PIC7URE';
const PASSING = 'XY12ABC';

t.test('every image on the live, search and detection pages decodes, and the export carries real pictures', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await hubUnderTest(t, { beforeStart: (env) => createUserWithCli(env, 'op@images.test', 'operator', PASSWORD) });
  const downloads = await mkdtemp(join(tmpdir(), 'alpr-images-'));
  t.teardown(() => rm(downloads, { recursive: true, force: true }));
  await mkdir(SCREENSHOTS, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  const shoot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-images-1280x800.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-images-390x844.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  // Sign in (enrolling two-factor) and watch one plate, as an operator does.
  await page.goto(`${hub.url}/watchlists`);
  await page.fill('#email', 'op@images.test');
  await page.fill('#password', PASSWORD);
  await page.press('#password', 'Enter');
  await page.waitForSelector('#enroll-step', { state: 'visible' });
  const key = ((await page.textContent('#manual-key')) ?? '').replace(/\s/g, '');
  await page.fill('#enroll-code', await totpCode(key, new Date()));
  await page.press('#enroll-code', 'Enter');
  await page.waitForSelector('#codes-step', { state: 'visible' });
  await page.check('#codes-saved');
  await page.click('#codes-step button[type="submit"]');
  await page.waitForURL(/\/watchlists$/);
  await page.fill('#list-name', 'Pictures wanted');
  await page.press('#list-name', 'Enter');
  await page.waitForSelector('#entries-section', { state: 'visible' });
  await page.fill('#entry-plate', WATCHED);
  await page.press('#entry-plate', 'Enter');
  await page.waitForSelector(`#entries td:has-text("${WATCHED}")`);
  // The live page shows alerts of the lists one is subscribed to.
  await page.click('tr[data-list] button:has-text("Subscribe")');
  await page.waitForSelector('tr[data-list] button:has-text("Subscribed")');

  await t.test('the check catches an image that does not decode', async (t) => {
    // The old simulators' bytes: a JPEG header, random bytes, an end marker.
    const fake = jpegLike(400).toString('base64');
    await page.evaluate((data) => {
      const img = document.createElement('img');
      img.id = 'fake-image';
      img.src = `data:image/jpeg;base64,${data}`;
      document.body.append(img);
    }, fake);
    t.match(broken(await imagesOn(page)), [{ src: /^data:image\/jpeg/ }], 'a JPEG header before random bytes is a broken image');
    await page.evaluate(() => document.getElementById('fake-image')?.remove());
  });

  await t.test('the live page: the alert and the feed show the camera pictures', async (t) => {
    await page.goto(`${hub.url}/live`);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'Live');
    const appliance = await applianceUnderTest(t, hub.enrollment.api_key, hubLinkedToml(hub.url));
    await appliance.start();
    t.teardown(traced('stop appliance', () => appliance.stop()));
    const caption = new Date().toISOString().slice(0, 19).replace('T', ' ');
    t.equal(await pushPlateWithImages(appliance.url, PASSING, plateCropJpeg(PASSING, { seed: 2 }), sceneJpeg(PASSING, { seed: 2, caption })), 200);
    t.equal(await pushPlateWithImages(appliance.url, WATCHED, plateCropJpeg(WATCHED, { seed: 3 }), sceneJpeg(WATCHED, { seed: 3, caption })), 200);
    await page.waitForSelector(`#alerts img[alt="Plate ${WATCHED}"]`, { timeout: 60_000 });
    await page.waitForSelector(`#detections img[alt="Plate ${WATCHED}"]`, { timeout: 60_000 });
    await page.waitForSelector(`#detections img[alt="Plate ${PASSING}"]`, { timeout: 60_000 });
    const images = await imagesOn(page);
    t.ok(images.length >= 3, `${images.length} images: the alert's crop and two in the feed`);
    t.same(broken(images), [], 'every image decodes');
    t.ok(
      images.every((i) => i.naturalWidth === 240),
      'each is the 240 px crop',
    );
    await shoot('live');
  });

  let detectionUrl = '';
  await t.test('search results show the crop', async (t) => {
    await page.goto(`${hub.url}/search`);
    await page.fill('#plate', WATCHED);
    await page.selectOption('#purpose', 'stolen_vehicle');
    await page.fill('#reason', 'case IMG-1');
    await page.press('#reason', 'Enter');
    await page.waitForSelector(`#results img[alt="Plate crop ${WATCHED}"]`);
    const images = await imagesOn(page);
    t.ok(images.length >= 1, `${images.length} images`);
    t.same(broken(images), [], 'every image decodes');
    await shoot('search');
    detectionUrl = (await page.getAttribute(`#results a:has-text("${WATCHED}")`, 'href')) ?? '';
    t.match(detectionUrl, /\/detections\//);
  });

  await t.test('the detection page shows the scene and the crop; its export carries both, decodable', async (t) => {
    await page.click(`#results a:has-text("${WATCHED}")`);
    await page.waitForSelector('#detail', { state: 'visible' });
    await page.waitForFunction(() => (document.getElementById('full-image') as HTMLImageElement | null)?.getAttribute('src'));
    const images = await imagesOn(page);
    t.same(
      images.map((i) => [i.alt, i.naturalWidth]).sort(),
      [
        ['Full scene', 640],
        ['Plate crop', 240],
      ],
      'the scene and the crop, both decoded',
    );
    t.equal(await page.isVisible('#full-image'), true, 'the scene is shown, not hidden as failed');
    await shoot('detection');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const file = join(downloads, 'export.zip');
    await download.saveAs(file);
    const files = await readZipFiles(file);
    const pictures = [...files].filter(([name]) => /\.(jpe?g)$/i.test(name));
    t.equal(pictures.length, 2, `the export holds the crop and the scene (${pictures.map(([n]) => n).join(', ')})`);
    for (const [name, bytes] of pictures) {
      const decoded = jpeg.decode(bytes);
      t.ok([240, 640].includes(decoded.width), `${name} decodes (${decoded.width}x${decoded.height})`);
    }
  });
});
