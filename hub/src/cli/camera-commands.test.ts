import t from 'tap';
import { eq } from 'drizzle-orm';
import { openEscrow } from '../collectors/cameras/credential-escrow.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { cameras } from '../db/schema/cameras.ts';
import { cliWorld, type CliRun as Run } from './cli-world.test-helper.ts';

/**
 * `camera ...` and `collector suspend|resume|replace|replace-cancel` run as an admin runs
 * them: the CLI over a real database (in this process: cli-world.test-helper.ts), secrets
 * piped on stdin. The usage mistakes are in camera-usage.test.ts and the collector state
 * commands in collector-state-commands.test.ts: split when each CLI run was a child process
 * and one file holding all of them outran its time budget on a loaded machine.
 */
const { cli, withHub, config } = await cliWorld(t, 'camera-cli');

const json = (run: Run): Record<string, unknown> => JSON.parse(run.stdout) as Record<string, unknown>;

const collectorId = (await withHub((ctx) => claimedCollector(ctx))).collectorId;

t.test('cameras added, listed, edited, disabled and removed from the command line', async (t) => {
  const added = await cli(
    [
      'camera',
      'add',
      collectorId,
      '--name',
      'Gate in',
      '--vendor',
      'vendor_a',
      '--mode',
      'pull',
      '--host',
      '10.0.0.5',
      '--port',
      '8080',
      '--username',
      'admin',
      '--password-stdin',
      '--json',
    ],
    'hunter2-cli\n',
  );
  t.equal(added.code, 0, added.stderr);
  const gate = json(added);
  t.match(gate, { name: 'Gate in', vendor: 'vendor_a', mode: 'pull', host: '10.0.0.5', port: 8080, username: 'admin', has_credentials: true, enabled: true });
  t.match(gate, { config_version: 2, command_id: /^[0-9a-f-]{36}$/ }, 'pushed to the running collector');
  t.notMatch(added.stdout + added.stderr, /hunter2/, 'the password is not printed back');
  t.notOk('password' in gate, 'nor named');
  const sealed = await withHub(
    async (ctx) =>
      (
        await ctx.db.db
          .select()
          .from(cameras)
          .where(eq(cameras.id, String(gate['id'])))
      )[0]?.escrowedCredentials,
  );
  t.ok(sealed, 'credentials stored sealed');
  if (sealed) t.same(openEscrow(config, sealed), { username: 'admin', password: 'hunter2-cli' }, "the piped password, less the shell's newline");

  const protect = await cli(
    [
      'camera',
      'add',
      collectorId,
      '--name',
      'Yard',
      '--vendor',
      'vendor_b',
      '--mode',
      'pull',
      '--host',
      'console.local',
      '--camera-ids',
      'cam1, cam2',
      '--token-stdin',
      '--json',
    ],
    'api-key-secret',
  );
  t.equal(protect.code, 0, protect.stderr);
  t.match(json(protect), { vendor: 'vendor_b', port: 443, camera_ids: ['cam1', 'cam2'], has_credentials: true });
  const pushed = await cli([
    'camera',
    'add',
    collectorId,
    '--name',
    'Exit lane',
    '--vendor',
    'vendor_a',
    '--mode',
    'push',
    '--timezone',
    'Europe/Berlin',
    '--disabled',
  ]);
  t.equal(pushed.code, 0, pushed.stderr);
  t.match(pushed.stdout, /name:\s+Exit lane/, 'text output by default');
  t.match(pushed.stdout, /has_credentials:\s+false/);
  t.match(pushed.stdout, /enabled:\s+false/);

  const listed = await cli(['camera', 'list', collectorId, '--json']);
  t.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
  t.match(rows, [
    { name: 'Gate in', address: '10.0.0.5:8080', has_credentials: true, last_outcome: null },
    { name: 'Yard', address: 'console.local:443' },
    { name: 'Exit lane', address: null, enabled: false, has_credentials: false },
  ]);
  t.notMatch(listed.stdout, /hunter2|api-key-secret/, 'no secret in the list');
  const table = await cli(['camera', 'list', collectorId]);
  t.match(table.stdout, /^id\s+name\s+vendor\s+mode\s+address/, 'a table for people');
  t.match(table.stdout, /Gate in\s+vendor_a\s+pull\s+10\.0\.0\.5:8080\s+true\s+true/);

  const id = String(gate['id']);
  const renamed = await cli(['camera', 'edit', collectorId, id, '--username', 'operator']);
  t.equal(renamed.code, 2, 'a new username without its password');
  t.match(renamed.stderr, /^--password-stdin: enter the credentials again when the username, host or vendor changes/);
  const relogged = await cli(['camera', 'edit', collectorId, id, '--username', 'operator', '--password-stdin', '--json'], 'new-pass\n');
  t.equal(relogged.code, 0, relogged.stderr);
  t.match(json(relogged), { username: 'operator', has_credentials: true, config_version: 5 });
  const moved = await cli(['camera', 'edit', collectorId, id, '--port', '8443', '--timezone', 'Europe/London', '--json']);
  t.match(json(moved), { port: 8443, timezone: 'Europe/London', has_credentials: true }, 'an edit without a secret keeps the stored one');

  t.match(json(await cli(['camera', 'disable', collectorId, id, '--json'])), { enabled: false });
  t.match(json(await cli(['camera', 'enable', collectorId, id, '--json'])), { enabled: true });
  const removed = await cli(['camera', 'remove', collectorId, id, '--json']);
  t.match(json(removed), { camera_id: id, name: 'Gate in', removed: true });
  const after = JSON.parse((await cli(['camera', 'list', collectorId, '--json'])).stdout) as { name: string }[];
  t.same(
    after.map((c) => c.name),
    ['Yard', 'Exit lane'],
  );
  const again = await cli(['camera', 'remove', collectorId, id]);
  t.equal(again.code, 1);
  t.match(again.stderr, /error \(not_found\): no such camera/);
  const nobody = await cli(['camera', 'list', '7d4c1c5e-0000-4000-8000-000000000000']);
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, /no such collector/);
});

t.test('an ordinary camera from the command line: its settings, its login from stdin', async (t) => {
  const other = (await withHub((ctx) => claimedCollector(ctx))).collectorId;
  const added = await cli(
    [
      'camera',
      'add',
      other,
      '--name',
      'Street',
      '--vendor',
      'snapshot',
      '--mode',
      'pull',
      '--rtsp-url',
      'rtsp://192.0.2.70:554/Streaming/Channels/101',
      '--frames-per-second',
      '2.5',
      '--region',
      'br',
      '--passage-gap-ms',
      '2000',
      '--username',
      'viewer',
      '--password-stdin',
      '--json',
    ],
    'street-cli-pw\n',
  );
  t.equal(added.code, 0, added.stderr);
  const street = json(added);
  t.match(street, {
    vendor: 'snapshot',
    mode: 'pull',
    host: null,
    rtsp_url: 'rtsp://192.0.2.70:554/Streaming/Channels/101',
    frames_per_second: 2.5,
    region: 'br',
    passage_gap_ms: 2000,
    change_threshold: null,
    username: 'viewer',
    has_credentials: true,
  });
  t.notMatch(added.stdout + added.stderr, /street-cli-pw/, 'the password is not printed back');
  const edited = await cli(['camera', 'edit', other, String(street['id']), '--change-threshold', '8', '--json']);
  t.equal(edited.code, 0, edited.stderr);
  t.match(json(edited), { change_threshold: 8, region: 'br', has_credentials: true }, 'an edit changes what it names');
  const listed = JSON.parse((await cli(['camera', 'list', other, '--json'])).stdout) as Record<string, unknown>[];
  t.match(listed, [{ name: 'Street', vendor: 'snapshot', address: 'rtsp://192.0.2.70:554/Streaming/Channels/101' }], 'listed at its stream');

  const mixed = await cli(['camera', 'edit', other, String(street['id']), '--no-login', '--username', 'x']);
  t.equal(mixed.code, 2, 'a removal with a new username is a usage mistake');
  t.match(mixed.stderr, /--no-login removes the login/);
  const open = await cli(['camera', 'edit', other, String(street['id']), '--no-login', '--json']);
  t.equal(open.code, 0, open.stderr);
  t.match(json(open), { username: null, has_credentials: false, rtsp_url: 'rtsp://192.0.2.70:554/Streaming/Channels/101' }, 'the login is removed');
  const [row] = await withHub((ctx) =>
    ctx.db.db
      .select()
      .from(cameras)
      .where(eq(cameras.id, String(street['id']))),
  );
  t.equal(row?.escrowedCredentials, null, 'nothing left in the escrow');
});
