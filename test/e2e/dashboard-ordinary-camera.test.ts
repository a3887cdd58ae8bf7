/**
 * An ordinary camera (vendor snapshot, docs/cameras-central.md) added on the collector page, in
 * a real headless Chromium against a real hub in this process: the kind shows its own fields
 * and hides the ones it has no use for, keeps to pull, says a mistake as it is typed (a login in
 * the URL, a rate out of bounds), and the added camera is listed at its stream with its settings
 * stored. axe at 1280 and 390 wide with the kind's fields on view.
 */
import t, { type Test } from 'tap';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { listCameras } from '../../hub/src/collectors/cameras/list.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

const PASSWORD = 'ordinary camera form correct horse battery';

t.test('the collector page adds an ordinary camera', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'ordinary-camera-ui' });
  const site = await claimedSite(hub, 'Street site');
  const admin = await enrolledUser(hub, 'admin@ordinary-ui.test', PASSWORD, 'admin');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/admin/collectors', admin);
  await page.click('tr[data-collector]:has-text("Street site") button:has-text("Manage")');
  await page.waitForSelector('#camera-form', { state: 'visible' });

  async function axeAtBothWidths(t: Test, what: string): Promise<void> {
    t.same(await seriousViolations(page), [], `${what}: no serious or critical accessibility violation at 1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(wide <= 390, `${what}: no wider than a 390 px phone (${wide} px)`);
    t.same(await seriousViolations(page), [], `${what}: no serious or critical accessibility violation at 390`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  t.equal(await page.isHidden('#camera-rtsp-url'), true, 'an ISAPI camera is not asked for an RTSP URL');
  await page.selectOption('#camera-vendor', 'snapshot');
  for (const id of [
    '#camera-snapshot-url',
    '#camera-rtsp-url',
    '#camera-frames-per-second',
    '#camera-region',
    '#camera-change-threshold',
    '#camera-passage-gap-ms',
  ]) {
    t.equal(await page.isVisible(id), true, `${id} is asked for`);
  }
  for (const id of ['#camera-channel', '#camera-token', '#camera-camera-ids', '#camera-timezone']) t.equal(await page.isHidden(id), true, `${id} is not`);
  t.equal(await page.inputValue('#camera-mode'), 'pull', 'always pulled');
  t.equal(await page.$eval('#camera-mode option[value="push"]', (o) => (o as HTMLOptionElement).disabled), true, 'push cannot be chosen');
  t.match(await page.textContent('#camera-mode'), /The collector takes its frames and reads the plates/);

  await page.fill('#camera-name', 'Street north');
  await page.fill('#camera-rtsp-url', 'rtsp://viewer:secret@192.0.2.70/stream1');
  t.match(await page.textContent('#camera-rtsp-url-error'), /Username and Password/, 'a login in the URL is refused as typed');
  t.equal(await page.getAttribute('#camera-rtsp-url', 'aria-invalid'), 'true');
  await page.fill('#camera-rtsp-url', 'rtsp://192.0.2.70:554/stream1');
  t.equal(await page.textContent('#camera-rtsp-url-error'), '', 'and the message goes once it is right');
  await page.fill('#camera-frames-per-second', '25');
  t.match(await page.textContent('#camera-frames-per-second-error'), /0\.2 to 10/);
  await page.fill('#camera-frames-per-second', '2');
  await page.fill('#camera-region', 'us');
  await page.fill('#camera-passage-gap-ms', '2500');
  await page.fill('#camera-username', 'viewer');
  await page.fill('#camera-password', 'Street-pw-1');
  await axeAtBothWidths(t, "the ordinary camera's form");

  await page.click('#camera-submit');
  const row = 'tr[data-camera]:has-text("Street north")';
  await page.waitForSelector(row);
  t.match(await page.textContent(row), /Ordinary IP camera \(plates read on the box\)/);
  t.match(await page.textContent(row), /rtsp:\/\/192\.0\.2\.70:554\/stream1/, 'listed at its stream');
  t.equal(await page.inputValue('#camera-vendor'), 'vendor_a', 'the form is emptied');
  const [stored] = await listCameras(hub.deps.db, site.collectorId);
  t.match(stored, {
    vendor: 'snapshot',
    mode: 'pull',
    rtsp_url: 'rtsp://192.0.2.70:554/stream1',
    frames_per_second: 2,
    region: 'us',
    passage_gap_ms: 2500,
    username: 'viewer',
    has_credentials: true,
  });

  await page.click(`${row} button:has-text("Edit")`);
  t.equal(await page.inputValue('#camera-vendor'), 'snapshot', 'an edit opens on its kind');
  t.equal(await page.inputValue('#camera-region'), 'us', 'with its settings');
  await page.fill('#camera-region', 'br');
  await page.click('#camera-submit');
  // The hub's answer to the edit, said on the page (the form's title alone also resets when the
  // view reloads, which under load in CI let the check below run before the edit was stored).
  await page.waitForSelector('#message:has-text("Camera Street north saved")', { timeout: 60_000 });
  await page.waitForFunction(async () => document.querySelector('#camera-form-title')?.textContent === 'Add a camera');
  const edited = async () => (await listCameras(hub.deps.db, site.collectorId))[0];
  for (let waited = 0; (await edited())?.region !== 'br' && waited < 30_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
  t.match(await edited(), { region: 'br', frames_per_second: 2, has_credentials: true }, 'an edit changes what changed');

  // Clearing the username removes the camera's login, and the form says so before the save.
  await page.click(`${row} button:has-text("Edit")`);
  t.match(await page.textContent('#camera-password-hint'), /Clear Username to remove/);
  await page.fill('#camera-username', '');
  t.match(await page.textContent('#camera-password-hint'), /saving removes the camera's login/);
  t.equal(await page.textContent('#camera-username-error'), '', 'no login is allowed for an ordinary camera');
  await page.click('#camera-submit');
  await page.waitForFunction(async () => document.querySelector('#camera-form-title')?.textContent === 'Add a camera');
  for (let waited = 0; (await edited())?.has_credentials !== false && waited < 30_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
  t.match(await edited(), { username: null, has_credentials: false, region: 'br' }, 'the login is removed');
  t.same(problems.take(), [], 'nothing went wrong on the page');
  await context.close();
});
