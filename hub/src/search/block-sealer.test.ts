/**
 * The sealer's loop (block-sealer.ts; docs/search.md "Postings sealed in blocks"), on
 * PostgreSQL or PGlite as DATABASE_URL says: below its threshold it leaves the fresh postings
 * alone; past it, one pass seals them all and merges what that made due; started as the hub
 * starts it, it seals by itself once reads flow past the threshold. The postings stay exactly
 * those the stored reads imply throughout.
 */
import t from 'tap';
import { adminTestContext } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createLog } from '../platform/log.ts';
import { readsPastSeal } from '../db/unkeyed-reads.ts';
import { createBlockSealer } from './block-sealer.ts';
import { createKeyBuilder } from './key-builder-worker.ts';
import { uploadReads } from './reads.test-helper.ts';
import { postingsAgainstDetections } from './trigram-postings.test-helper.ts';

const ctx = await adminTestContext(t);
const db = ctx.deps.db;
const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'East gate', latitude: 51.5, longitude: 0.1 });
const gate = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: 'hw-east' }, '192.0.2.7');
const now = ctx.clock.now();
const builder = createKeyBuilder({ db, clock: ctx.clock, log: createLog('silent') });
const reads = (n: number, from: number): Array<[string, number]> =>
  Array.from({ length: n }, (_, i) => [`KX${String(from + i).padStart(3, '0')}ZT`, (from + i) * 3_600_000]);
const options = { sealReads: 10, cap: 4, fanout: 2, pollMs: 50 };

t.test('below the threshold nothing moves; past it one pass seals and merges', async (t) => {
  const sealer = createBlockSealer({ db, clock: ctx.clock, log: createLog('silent') }, options);
  await uploadReads(ctx, gate.api_key, reads(6, 0), now);
  await builder.drain();
  t.equal(await readsPastSeal(db), 6);
  t.same(await sealer.runOnce(), { sealed: 0, merged: 0 }, '6 reads past the seal: not yet');
  await uploadReads(ctx, gate.api_key, reads(24, 6), now);
  await builder.drain();
  const pass = await sealer.runOnce();
  t.ok(pass.sealed > 0 && pass.merged > 0, `sealed ${pass.sealed}, merged ${pass.merged}`);
  t.equal(await readsPastSeal(db), 0);
  const state = await postingsAgainstDetections(db);
  t.same([state.stale, state.missing, state.badBlocks, state.stored - state.sealed], [0, 0, 0, 0], 'every posting sealed once');
});

t.test('started as the hub starts it, it seals by itself once reads pass the threshold', async (t) => {
  const sealer = createBlockSealer({ db, clock: ctx.clock, log: createLog('silent') }, options);
  await sealer.start(ctx.database.listen.bind(ctx.database));
  t.teardown(() => sealer.stop());
  await uploadReads(ctx, gate.api_key, reads(12, 30), now);
  await builder.drain();
  const deadline = Date.now() + 30_000;
  while ((await readsPastSeal(db)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(await readsPastSeal(db), 0, 'sealed');
  const state = await postingsAgainstDetections(db);
  t.same([state.stale, state.missing, state.badBlocks, state.stored - state.sealed], [0, 0, 0, 0]);
});

t.test('a key cursor moved back by hand rebuilds no posting already sealed', async (t) => {
  await db.sql(`UPDATE search_key_cursor SET last_pk = 0`);
  await builder.drain();
  const state = await postingsAgainstDetections(db);
  t.same([state.stale, state.missing, state.badBlocks], [0, 0, 0], 'no read posted twice, none left out');
});
