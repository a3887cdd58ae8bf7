/**
 * Issue 51, "Done when": the setup page's "Test" of an ordinary camera in Chromium, at 1280 and
 * 390 px, with axe. A dataset photograph (../shared/datasets/openalpr-us, never copied in) is
 * served by the snapshot simulator behind Digest; the page's Test button takes the frame, the
 * device's real plate reader reads it, and the page shows the frame with a box round each plate
 * and what was read. What is read is compared with the same reader's answer on the photograph.
 */
import t from 'tap';
import { startSetup, postForm } from '../../appliance/src/setup/setup.test-helper.ts';
import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { startSnapshotCamera } from '../../scripts/simulators/snapshot-camera.ts';
import { datasetAvailable, datasetPassages } from '../../scripts/simulators/snapshot-scenes.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';

t.test('setup page: Test of an ordinary camera shows the frame, the plate box and the read', { timeout: 600_000 }, async (t) => {
  if (!datasetAvailable()) {
    t.fail('../shared/datasets/openalpr-us is not there: this test needs the dataset photographs beside the repository');
    return;
  }
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const passages = datasetPassages(1);
  const camera = await startSnapshotCamera({ passages, manual: true, auth: 'digest', password: 'aim-Pa55-camera' });
  t.teardown(() => camera.close());
  camera.show(0);
  const reader = await openFrameReader();
  t.teardown(() => reader.close());
  const expected = (await reader.read(new Uint8Array(passages[0]?.jpeg ?? Buffer.alloc(0)), { region: 'us' })).plates.map((p) => p.plate);
  t.ok(expected.length > 0, `the reader finds plates in the photograph: ${expected.join(', ')}`);

  const setup = await startSetup(t, { reader });
  const added = await postForm(setup.base, '/setup/cameras', {
    id: 'aim-me',
    vendor: 'snapshot',
    mode: 'pull',
    snapshot_url: camera.snapshotUrl,
    username: 'admin',
    password: 'aim-Pa55-camera',
    region: 'us',
  });
  t.equal(added.status, 303, 'the ordinary camera is added');

  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await t.test(`${viewport.width} px`, async (t) => {
      const context = await browser.newContext({ viewport });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(`${setup.base}/`);
      const row = page.locator('tr', { has: page.locator('td', { hasText: 'aim-me' }) });
      await row.getByRole('button', { name: 'Test connection' }).click();
      const figure = page.locator('figure.frame-test');
      await figure.waitFor({ timeout: 120_000 });
      const caption = (await figure.locator('figcaption').textContent()) ?? '';
      t.equal(caption, `Read: ${expected.join(', ')}`, 'what was read, as the reader reads the photograph');
      t.equal(await figure.locator('rect').count(), expected.length, 'a box round each plate');
      t.match(
        (await figure.locator('svg').getAttribute('aria-label')) ?? '',
        /^Last frame from camera aim-me, read: /,
        'the picture is named for screen readers',
      );
      const loaded = await page.evaluate(async () => {
        const href = document.querySelector('figure.frame-test image')?.getAttribute('href') ?? '';
        const r = await fetch(href);
        return { status: r.status, type: r.headers.get('content-type'), size: (await r.arrayBuffer()).byteLength };
      });
      t.same({ status: loaded.status, type: loaded.type }, { status: 200, type: 'image/jpeg' }, 'the frame is served');
      t.equal(loaded.size, passages[0]?.jpeg.length, 'the very frame the camera served');
      const box = await figure.locator('svg').boundingBox();
      t.ok(box !== null && box.width > 0 && box.width <= viewport.width, `the frame fits the page (${Math.round(box?.width ?? 0)} px)`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      t.ok(width <= viewport.width, `no horizontal overflow (${width} px)`);
      t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation');
      // Chromium's own /favicon.ico request (the page has none) logs a console 404 without a
      // page response; every request the page makes is still checked (`response:` entries).
      t.same(
        problems.take().filter((p) => p !== 'console: Failed to load resource: the server responded with a status of 404 (Not Found)'),
        [],
        'no console error or failed request',
      );
    });
  }
});
