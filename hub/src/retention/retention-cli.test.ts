import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { cliDatabaseEnv } from '../cli/cli-database.test-helper.ts';

/*
 * `npm run hub -- retention` as an admin types it: a preset previewed with --dry-run reports
 * the non-hit tier and the periods of every tier; a preset without --dry-run, or one that
 * does not exist, is a usage error (exit 2) before anything opens the database.
 */
const run = promisify(execFile);
const main = join(import.meta.dirname, '../cli/main.ts');

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', main, 'retention', ...args], {
      env: { ...process.env, ...env },
      timeout: 300_000,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

t.test('retention CLI: preset preview and usage errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'retention-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = { ...(await cliDatabaseEnv(t, process.env, dir)), HUB_LOG_LEVEL: 'error' };

  const wrong = await cli(env, '--dry-run', '--preset', '3m');
  t.equal(wrong.code, 2);
  t.match(wrong.err, /--preset takes default, 90d, 21d, 24h/);
  t.equal((await cli(env, '--preset', '21d')).code, 2, 'a preset is only previewed, never run');

  const preview = await cli(env, '--dry-run', '--preset', '21d', '--json');
  t.equal(preview.code, 0, preview.err);
  const report = JSON.parse(preview.out.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  t.equal(report['preset'], '21d');
  t.equal(report['non-hits would remove'], 0, 'an empty hub has nothing to remove');
  t.match(report['tiers'], ['reads that matched nothing (no alert, no hold): 21 days']);

  const configured = await cli(env, '--dry-run', '--json');
  t.equal(configured.code, 0, configured.err);
  t.match(configured.out, /"non-hit tier":"off \(reads follow the detections period\)"/, 'the default preset has no tier of its own');
});
