import t from 'tap';
import { cliWorld } from '../cli/cli-world.test-helper.ts';

/*
 * `npm run hub -- retention` as an admin types it: a preset previewed with --dry-run reports
 * the non-hit tier and the periods of every tier; a preset without --dry-run, or one that
 * does not exist, is a usage error (exit 2) before anything opens the database. The command
 * runs in this process (cli-world.test-helper.ts); main.test.ts covers the entry point.
 */
t.test('retention CLI: preset preview and usage errors', async (t) => {
  const world = await cliWorld(t, 'retention-cli', { env: { HUB_LOG_LEVEL: 'error' } });
  const cli = (...args: string[]): ReturnType<typeof world.cli> => world.cli(['retention', ...args]);

  const wrong = await cli('--dry-run', '--preset', '3m');
  t.equal(wrong.code, 2);
  t.match(wrong.stderr, /--preset takes default, 90d, 21d, 24h/);
  t.equal((await cli('--preset', '21d')).code, 2, 'a preset is only previewed, never run');

  const preview = await cli('--dry-run', '--preset', '21d', '--json');
  t.equal(preview.code, 0, preview.stderr);
  const report = JSON.parse(preview.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  t.equal(report['preset'], '21d');
  t.equal(report['non-hits would remove'], 0, 'an empty hub has nothing to remove');
  t.match(report['tiers'], ['reads that matched nothing (no alert, no hold): 21 days']);

  const configured = await cli('--dry-run', '--json');
  t.equal(configured.code, 0, configured.stderr);
  t.match(configured.stdout, /"non-hit tier":"off \(reads follow the detections period\)"/, 'the default preset has no tier of its own');
});
