import t from 'tap';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { cliWorld, type CliRun as Run } from './cli-world.test-helper.ts';

/**
 * `camera add|edit` mistakes as an admin makes them on the command line: each refused in one
 * line with exit 2, no secret echoed, nothing added. Apart from camera-commands.test.ts
 * since each case was a child process of its own and the sixteen took minutes on a loaded
 * machine; each now runs in this process (cli-world.test-helper.ts).
 */
const { cli, withHub } = await cliWorld(t, 'camera-usage');
const collectorId = (await withHub((ctx) => claimedCollector(ctx))).collectorId;

t.test('camera mistakes are refused in one line, exit 2, before the database', async (t) => {
  const base = ['camera', 'add', collectorId, '--name', 'Bad'];
  const cases: Array<{ args: string[]; stdin?: string; error: RegExp; why: string }> = [
    {
      args: [...base, '--vendor', 'acme', '--mode', 'pull'],
      error: /^--vendor must be vendor_a \(ISAPI camera or NVR, Digest login\), vendor_b \(Protect console, API key\) or snapshot/,
      why: 'a bad vendor',
    },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'poll'], error: /^--mode must be pull/, why: 'a bad mode' },
    { args: ['camera', 'add', collectorId, '--vendor', 'vendor_a', '--mode', 'push'], error: /^--name is required/, why: 'no name' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password', 'hunter2'],
      error: /^--password is not accepted on the command line \(ps and the shell history would show it\): pipe it in with --password-stdin/,
      why: 'a password on argv',
    },
    { args: [...base, '--vendor', 'vendor_b', '--mode', 'pull', '--host', 'h', '--token=hunter2'], error: /^--token is not accepted/, why: 'a token on argv' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u'],
      error: /^--password-stdin: an ISAPI camera polled by the collector needs its username and password/,
      why: 'a pull camera without its password',
    },
    { args: [...base, '--vendor', 'vendor_b', '--mode', 'pull', '--token-stdin'], stdin: 't', error: /^--host: required/, why: 'a console without its host' },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--port', '70000'], error: /^--port: .*65535/, why: 'a port out of range' },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--port', 'http'], error: /^--port must be a number/, why: 'a port that is no number' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--timezone', 'Mars/Olympus'],
      error: /^--timezone: not an IANA time zone/,
      why: 'an unknown zone',
    },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password-stdin', '--token-stdin'],
      error: /^give --password-stdin or --token-stdin, not both/,
      why: 'two secrets on one stdin',
    },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password-stdin'],
      stdin: '\n',
      error: /^--password-stdin: nothing was read/,
      why: 'an empty stdin',
    },
    {
      args: [...base, '--vendor', 'snapshot', '--mode', 'pull', '--rtsp-url', 'rtsp://admin:hunter2@192.0.2.70/s'],
      error: /^--rtsp-url: put the login in --username and --password-stdin, not in the URL/,
      why: 'an ordinary camera with its login in the URL',
    },
    {
      args: [...base, '--vendor', 'snapshot', '--mode', 'pull', '--host', 'h', '--frames-per-second', '30'],
      error: /^--frames-per-second: /,
      why: 'an ordinary camera at 30 frames a second',
    },
    {
      args: [...base, '--vendor', 'snapshot', '--mode', 'push', '--host', 'h'],
      error: /^--mode: an ordinary camera is pull/,
      why: 'an ordinary camera that pushes',
    },
    { args: ['camera', 'edit', collectorId], error: /^missing camera id/, why: 'an edit without its camera' },
    { args: ['camera', 'edit', collectorId, '7d4c1c5e-0000-4000-8000-000000000000'], error: /^nothing to change/, why: 'an edit without a change' },
    { args: ['camera', 'rename', collectorId], error: /^unknown command: camera rename/, why: 'an unknown verb' },
  ];
  // None of these opens the database: run three at a time (about 1.5 s of start-up each on a
  // quiet machine). All sixteen at once took over a minute each on a loaded 2-core CI box and
  // hit the child timeout.
  const runs: Run[] = [];
  for (let i = 0; i < cases.length; i += 3) {
    runs.push(...(await Promise.all(cases.slice(i, i + 3).map((c) => cli(c.args, c.stdin)))));
  }
  for (const [i, c] of cases.entries()) {
    const run = runs[i] ?? { code: -1, stdout: '', stderr: 'not run' };
    t.equal(run.code, 2, c.why);
    t.match(run.stderr, c.error, c.why);
    t.notMatch(run.stderr, /hunter2/, `${c.why}: no secret echoed`);
  }
  const list = JSON.parse((await cli(['camera', 'list', collectorId, '--json'])).stdout) as { name: string }[];
  t.notOk(
    list.some((c) => c.name === 'Bad'),
    'nothing was added',
  );
});
