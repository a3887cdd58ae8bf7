/**
 * A watchlist's recipients on the dashboard (docs/watchlists.md "Recipients"), in a real
 * headless Chromium against a real hub in this process: an admin names a group chat linked by
 * the admin, a webhook target and the list's MQTT topic, and finds them after a reload; an
 * operator sees the admin's choices ticked and unchangeable, adds their own chat, and the set
 * the hub keeps has all of them; a chat the bot does not know is refused with the hub's reason.
 * axe and the page width at 1280 and 390.
 */
import t from 'tap';
import { createTarget } from '../../hub/src/webhooks/targets.ts';
import { getRecipients } from '../../hub/src/watchlists/recipients.ts';
import { checkAtBothWidths, seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

const PASSWORD = 'watchlist recipients page correct horse';

t.test('watchlist recipients on the dashboard', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'watchlist-recipients' });
  const admin = await enrolledUser(hub, 'admin@recipients-ui.test', PASSWORD, 'admin');
  const operator = await enrolledUser(hub, 'op@recipients-ui.test', PASSWORD, 'operator');
  await hub.deps.db.sql('INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, -1004242), ($2, 4343)', [admin.id, operator.id]);
  const { row: target } = await createTarget(hub.deps, {
    name: 'Barrier controller',
    url: 'http://127.0.0.1:9/hook',
    events: ['health'],
    filter: {},
    enabled: true,
  });

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/watchlists', admin);
  const visible = (selector: string) => page.waitForSelector(selector, { state: 'visible', timeout: 30_000 });

  await page.fill('#list-name', 'Night watch');
  await page.press('#list-name', 'Enter');
  await visible('#recipients-section');
  await visible('#recipients-chats input[value="-1004242"]');
  t.match(await page.textContent('#recipients-chats'), /Group chat -1004242 \(yours\)/, 'the admin’s own group chat is offered');
  await page.check('#recipients-chats input[value="-1004242"]');
  await page.check(`#recipients-webhooks input[value="${target.id}"]`);
  await page.check('#recipients-mqtt');
  await page.click('#recipients-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("Recipients of Night watch saved: 1 chat, 1 webhook target, its own MQTT topic")');
  const topic = (await page.textContent('#recipients-topic')) ?? '';
  t.match(topic, /^alpr\/watchlists\/[0-9a-f-]{36}\/alerts$/, 'the topic under the hub’s prefix (alpr by default), not a placeholder');
  t.ok(await page.isVisible('#recipients-mqtt-off'), 'and a line saying MQTT out is off on this hub');
  const listId = topic.split('/')[2] ?? '';
  t.same(problems.take(), [], 'no console error or failed request');

  await checkAtBothWidths(t, page);

  await page.reload();
  await page.click('#lists button:has-text("Night watch")');
  await visible('#recipients-chats input[value="-1004242"]');
  t.ok(await page.isChecked('#recipients-chats input[value="-1004242"]'), 'kept after a reload');
  t.ok(await page.isChecked(`#recipients-webhooks input[value="${target.id}"]`));
  t.ok(await page.isChecked('#recipients-mqtt'));

  await page.fill('#recipients-add-chat', '777');
  await page.click('#recipients-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("the bot knows no linked chat 777")');
  problems.take();

  // The operator: the admin's chat and target ticked and disabled, their own chat offered.
  const opContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const opPage = await opContext.newPage();
  const opProblems = watchProblems(opPage);
  await signInAt(opPage, hub, '/watchlists', operator);
  await opPage.click('#lists button:has-text("Night watch")');
  await opPage.waitForSelector('#recipients-chats input[value="4343"]', { state: 'visible', timeout: 30_000 });
  t.ok(await opPage.isDisabled('#recipients-chats input[value="-1004242"]'), 'the admin’s group chat cannot be changed by an operator');
  t.match(await opPage.textContent('#recipients-chats'), /linked by admin@recipients-ui\.test/);
  t.ok(await opPage.isDisabled(`#recipients-webhooks input[value="${target.id}"]`), 'nor the webhook target');
  t.equal(await opPage.locator('#recipients-add-chat').count(), 0, 'no free chat id for an operator');
  await opPage.check('#recipients-chats input[value="4343"]');
  await opPage.click('#recipients-form button[type="submit"]');
  await opPage.waitForSelector('#message:has-text("Recipients of Night watch saved: 2 chats, 1 webhook target, its own MQTT topic")');
  t.same(opProblems.take(), [], 'no console error or failed request for the operator');
  t.same(await seriousViolations(opPage), [], 'no serious or critical accessibility violation at 390 for the operator');
  const wideOp = await opPage.evaluate(() => document.documentElement.scrollWidth);
  t.ok(wideOp <= 390, `the operator's page fits 390 px (${wideOp} px)`);

  const kept = await getRecipients(hub.deps, listId);
  t.same(kept.chats.map((c) => c.chatId).sort(), ['-1004242', '4343'], 'the hub holds both chats');
  t.same(
    kept.webhooks.map((w) => w.id),
    [target.id],
  );
  t.equal(kept.mqtt, true);
});
