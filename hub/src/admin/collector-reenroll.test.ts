/**
 * Issue 10 section 5, collectors: a decommissioned device can be enrolled again, and a
 * pending collector whose claim code expired gets a new one from the admin.
 */
import t from 'tap';
import { claim } from '../collectors/claim.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { auditRows, adminTestContext, reverify, send } from './admin.test-helper.ts';
import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath, adminCollectorPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps, clock } = ctx;
const admin = await ctx.session('admin');
t.beforeEach(() => reverify(ctx, admin));
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

t.test('a decommissioned device claims a new collector; a live binding still refuses', async (t) => {
  const old = await claimedCollector(deps);
  const fresh = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Same box, new site' }));
  await t.rejects(
    claim(deps, { claim_code: String(fresh.claim_code), hardware_id: old.hardwareId }, '192.0.2.9'),
    { message: /already registered/ },
    'refused while the old collector is live',
  );

  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(old.collectorId, 'decommission'), {})).status, 200);
  const enrolled = await claim(deps, { claim_code: String(fresh.claim_code), hardware_id: old.hardwareId }, '192.0.2.9');
  t.equal(enrolled.collector_id, fresh.collector_id, 'the same box now belongs to the new collector');
  const history = await json(await send(ctx, admin, 'GET', adminCollectorPath(old.collectorId)));
  t.match(history, { status: 'decommissioned', hardware_id: old.hardwareId }, 'the old record keeps its history');

  const third = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Third' }));
  await t.rejects(
    claim(deps, { claim_code: String(third.claim_code), hardware_id: old.hardwareId }, '192.0.2.9'),
    { message: /already registered/ },
    'the new binding is live: one collector per device again',
  );
});

t.test('new claim code for a pending collector whose code expired', async (t) => {
  const created = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Late installer' }));
  const id = String(created.collector_id);
  clock.advance(49 * 3600_000);
  // The admin's 24 h session is long gone too: a new one.
  const later = await ctx.session('admin');
  await t.rejects(claim(deps, { claim_code: String(created.claim_code), hardware_id: 'HW-late-1' }, null), { message: /expired/ });

  const res = await send(ctx, later, 'POST', adminCollectorPartPath(id, 'claim-code'));
  t.equal(res.status, 201);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const issued = await json(res);
  t.match(issued, { collector_id: id, status: 'pending', claim_code: /^ALPR-[A-Z0-9]{4}-[A-Z0-9]{4}$/ });
  t.not(issued.claim_code, created.claim_code);
  t.equal(issued.claim_code_expires_at, new Date(clock.now().getTime() + 48 * 3600_000).toISOString());
  await t.rejects(
    claim(deps, { claim_code: String(created.claim_code), hardware_id: 'HW-late-1' }, null),
    { message: /unknown claim code/ },
    'the old code is gone',
  );
  const enrolled = await claim(deps, { claim_code: String(issued.claim_code), hardware_id: 'HW-late-1' }, null);
  t.equal(enrolled.collector_id, id);

  const again = await send(ctx, later, 'POST', adminCollectorPartPath(id, 'claim-code'));
  t.equal(again.status, 409, 'an active collector gets no claim code (provisioning re-binds it)');
  t.equal((await send(ctx, later, 'POST', adminCollectorPartPath('00000000-0000-4000-8000-000000000001', 'claim-code'))).status, 404);
  const operator = await ctx.session('operator');
  t.equal((await send(ctx, operator, 'POST', adminCollectorPartPath(id, 'claim-code'))).status, 403);
  const rows = await auditRows(ctx, 'admin.collector.claim_code', id);
  t.same(
    rows.map((r) => r.detail['outcome']),
    ['succeeded', 'failed'],
  );
  t.notOk(JSON.stringify(rows).includes(String(issued.claim_code)), 'the code is not in the audit');
});
