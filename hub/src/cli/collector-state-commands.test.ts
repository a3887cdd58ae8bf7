import t from 'tap';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { cliWorld, type CliRun as Run } from './cli-world.test-helper.ts';

/**
 * `collector suspend|resume|replace|replace-cancel` run as an admin runs them: the CLI over a
 * real database, in this process (cli-world.test-helper.ts).
 */
const { cli, withHub } = await cliWorld(t, 'collector-state-cli');
const json = (run: Run): Record<string, unknown> => JSON.parse(run.stdout) as Record<string, unknown>;
const collectorId = (await withHub((ctx) => claimedCollector(ctx))).collectorId;

t.test('suspend, resume, replace and cancel a replacement from the command line', async (t) => {
  const suspended = await cli(['collector', 'suspend', collectorId, '--reason', 'roadworks', '--json']);
  t.equal(suspended.code, 0, suspended.stderr);
  t.match(json(suspended), { collector_id: collectorId, status: 'disabled', reason: 'roadworks', suspended_at: /^\d{4}-\d\d-\d\dT/ });
  t.match(json(await cli(['collector', 'status', collectorId, '--json'])), { status: 'disabled' });
  const twice = await cli(['collector', 'suspend', collectorId]);
  t.equal(twice.code, 1);
  t.match(twice.stderr, /error \(conflict\): collector is already suspended/);
  const resumed = await cli(['collector', 'resume', collectorId, '--json']);
  t.equal(resumed.code, 0, resumed.stderr);
  t.match(json(resumed), { status: 'active', suspended_seconds: Number });
  t.equal((await cli(['collector', 'resume', collectorId])).code, 1, 'an active collector cannot be resumed');
  t.equal((await cli(['collector', 'suspend', collectorId, '--reason', '  '])).code, 2, 'an empty reason');

  const replace = await cli(['collector', 'replace', collectorId, '--json']);
  t.equal(replace.code, 0, replace.stderr);
  const issued = json(replace);
  t.match(issued, { collector_id: collectorId, pending_replacement: true, claim_code: /^ALPR-[A-Z2-9]{4}-[A-Z2-9]{4}$/, claim_code_expires_at: /^\d{4}-/ });
  t.ok(Date.parse(String(issued['claim_code_expires_at'])) > Date.now() + 47 * 3_600_000, 'the claim code lasts 48 hours');
  const cancelled = await cli(['collector', 'replace-cancel', collectorId]);
  t.equal(cancelled.code, 0, cancelled.stderr);
  t.match(cancelled.stdout, /pending_replacement:\s+false/);
  const notPending = await cli(['collector', 'replace-cancel', collectorId]);
  t.equal(notPending.code, 1);
  t.match(notPending.stderr, /not marked for replacement/);

  const created = json(await cli(['collector', 'create', '--site-name', 'Not yet claimed', '--json']));
  const pending = await cli(['collector', 'suspend', String(created['collector_id'])]);
  t.equal(pending.code, 1);
  t.match(pending.stderr, /collector is pending: only an active collector can be suspended/);
  t.equal((await cli(['collector', 'replace'])).code, 2, 'no collector id');
});
