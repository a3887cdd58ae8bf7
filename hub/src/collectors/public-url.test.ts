import t from 'tap';
import { claim } from './claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from './create-collector.ts';
import { isLoopbackHost } from './enrollment.ts';
import { collectorTestContext } from './collectors.test-helper.ts';

/**
 * Issue 10 section 3: a hub without HUB_PUBLIC_URL (its default is http://127.0.0.1:8443)
 * must not hand that address to a remote device; the claim is refused before anything is
 * written, so the same code works once the admin sets the URL.
 */
const ctx = await collectorTestContext(t);

t.test('loopback public URL: a remote claim is refused, the code stays usable; a local one works', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'No public URL' });
  const config = ctx.config as { publicUrl: string };
  const original = config.publicUrl;
  config.publicUrl = 'http://127.0.0.1:8443';
  t.teardown(() => {
    config.publicUrl = original;
  });
  await t.rejects(claim(ctx, { claim_code: created.claimCode, hardware_id: 'HW-remote-1' }, '192.0.2.50'), {
    code: 'unavailable',
    message: /HUB_PUBLIC_URL/,
  });
  const local = await claim(ctx, { claim_code: created.claimCode, hardware_id: 'HW-remote-1' }, '127.0.0.1');
  t.equal(local.central_url, 'http://127.0.0.1:8443', 'a device on the hub machine may use it');

  config.publicUrl = original;
  const other = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Public URL set' });
  const remote = await claim(ctx, { claim_code: other.claimCode, hardware_id: 'HW-remote-2' }, '192.0.2.50');
  t.equal(remote.central_url, original);
});

t.test('isLoopbackHost', async (t) => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) t.ok(isLoopbackHost(h), h);
  for (const h of ['hub.example.test', '10.0.0.1', '192.0.2.1', '::2', '128.0.0.1']) t.notOk(isLoopbackHost(h), h);
});
