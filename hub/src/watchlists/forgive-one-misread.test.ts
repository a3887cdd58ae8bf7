/**
 * "Forgive one misread" (docs/watchlists.md): reads come in through batch ingest, the alert
 * worker matches them against the in-memory index, and the alert list says how each matched.
 * PostgreSQL or PGlite, as DATABASE_URL says.
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import type { AlertRecord } from '../alerts/payload.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createWatchlistCache } from './cache.ts';
import { ALERTS_PATH, watchlistPartPath, watchlistPath, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const collector = await claimedCollector(ctx.deps);
const worker = createAlertWorker(ctx.deps, createWatchlistCache(ctx.deps));

async function upload(plates: readonly string[]): Promise<void> {
  await uploadBatch(
    ctx.app,
    collector.apiKey,
    plates.map((text, i) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(ctx.clock.now().getTime() - 60_000 + i).toISOString() }),
      plateCrop: jpegLike(300),
    })),
  );
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
}

type List = { id: string; forgive_one_misread: boolean };
const createList = async (body: Record<string, unknown>) => (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, body)).json()) as List;
const forgiving = await createList({ name: 'Forgiving', forgive_one_misread: true });
const strict = await createList({ name: 'Strict' });
for (const list of [forgiving, strict]) {
  await send(ctx, operator, 'POST', watchlistPartPath(list.id, 'entries'), { plate: 'KX45MNP' });
  await send(ctx, operator, 'POST', watchlistPartPath(list.id, 'subscription'));
}
const start = ctx.clock.now().toISOString();
const alerts = async () => ((await (await send(ctx, operator, 'GET', `${ALERTS_PATH}?since=${start}&limit=100`)).json()) as { data: AlertRecord[] }).data;

t.test('the setting is off unless asked for, and shown', async (t) => {
  t.equal(strict.forgive_one_misread, false);
  t.equal(forgiving.forgive_one_misread, true);
  const bad = await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Bad', forgive_one_misread: 'yes' });
  t.equal(bad.status, 400, 'not a boolean');
  const patch = await send(ctx, operator, 'PATCH', watchlistPath(strict.id), { forgive_one_misread: 1 });
  t.equal(patch.status, 400);
});

t.test('one out-of-group misread alerts only the list that forgives it, saying which character', async (t) => {
  await upload(['KX45MNR']); // P read as R: no confusion group holds them
  const raised = await alerts();
  t.equal(raised.length, 1, 'one alert: the strict list stays quiet');
  t.match(raised[0], {
    plate_number: 'KX45MNR',
    watchlist: { id: forgiving.id },
    match_kind: 'one_edit',
    match_detail: { kind: 'substitution', position: 6, entry_char: 'P', read_char: 'R' },
  });
});

t.test('a dropped or an added character is one misread too; two are not', async (t) => {
  await upload(['KX4MNP', 'KX45MNPP', 'XK45MNP', 'KX45NMP', 'KA45MNR']);
  const raised = await alerts();
  const byPlate = new Map(raised.map((a) => [a.plate_number, a]));
  t.match(byPlate.get('KX4MNP'), { watchlist: { id: forgiving.id }, match_kind: 'one_edit', match_detail: { kind: 'deletion', position: 3, entry_char: '5' } });
  t.match(byPlate.get('KX45MNPP'), { match_kind: 'one_edit', match_detail: { kind: 'insertion', position: 7, read_char: 'P' } });
  for (const twoAway of ['XK45MNP', 'KX45NMP', 'KA45MNR']) t.notOk(byPlate.has(twoAway), `${twoAway}: two edits, no alert`);
  t.equal(raised.length, 3, 'the three one-edit reads on the forgiving list only');
});

t.test('the exact plate alerts both lists, as an exact match', async (t) => {
  await upload(['KX45MNP']);
  const exact = (await alerts()).filter((a) => a.plate_number === 'KX45MNP');
  t.same(
    exact.map((a) => a.match_kind),
    ['exact', 'exact'],
  );
  t.notOk(exact.some((a) => a.match_detail !== undefined));
});
