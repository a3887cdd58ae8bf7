import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { verifyPassword } from '../auth/passwords.ts';
import { users } from '../db/schema/users.ts';
import { cliWorld } from './cli-world.test-helper.ts';

/**
 * The collector commands end to end, in this process (cli-world.test-helper.ts), and the
 * entry point itself as an admin's shell runs it: `node --import tsx hub/src/cli/main.ts`
 * as a child process, its exit codes, its stdout, a secret piped to its stdin.
 */
const world = await cliWorld(t, 'cli');
const { cli, cliProcess } = world;

t.test('create, configure, inspect and decommission a collector from the command line', async (t) => {
  const created = await cli(['collector', 'create', '--site-name', 'North gate', '--site-address', '1 Main St', '--lat', '51.5', '--lon', '-0.12', '--json']);
  t.equal(created.code, 0, created.stderr);
  const { collector_id: id, claim_code: code } = JSON.parse(created.stdout) as { collector_id: string; claim_code: string };
  t.match(code, /^ALPR-[A-Z2-9]{4}-[A-Z2-9]{4}$/);

  const config = join(world.dataDir, '..', 'config.json');
  await writeFile(config, JSON.stringify({ heartbeat_interval_seconds: 30 }));
  const configured = await cli(['collector', 'config', id, '--file', config]);
  t.equal(configured.code, 0, configured.stderr);
  t.match(configured.stdout, /config_version:\s+2/);

  const status = await cli(['collector', 'status', id, '--json']);
  t.match(JSON.parse(status.stdout), {
    id,
    site_name: 'North gate',
    status: 'pending',
    connectivity: 'offline',
    config_version: 2,
    heartbeat_interval_seconds: 30,
  });

  const rotate = await cli(['collector', 'rotate-key', id]);
  t.equal(rotate.code, 1, 'a pending collector has no key to rotate');
  t.match(rotate.stderr, /error \(conflict\): collector is pending/);

  const gone = await cli(['collector', 'decommission', id]);
  t.equal(gone.code, 0, gone.stderr);
  const list = await cli(['collector', 'list']);
  t.match(list.stdout, new RegExp(`${id}\\s+North gate\\s+decommissioned`));
});

t.test('usage mistakes exit 2 without touching the database', async (t) => {
  const missing = await cli(['collector', 'create']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--site-name is required/);
  const unknown = await cli(['collector', 'frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command/);
});

t.test('the real binary: usage exit 2, a create on stdout, a password piped on stdin', async (t) => {
  const usage = await cliProcess([]);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /^missing command\nusage: npm run hub -- <command>/);
  t.equal(usage.stdout, '');

  const created = await cliProcess(['collector', 'create', '--site-name', 'East gate', '--json']);
  t.equal(created.code, 0, created.stderr);
  t.match(JSON.parse(created.stdout), { collector_id: String, claim_code: /^ALPR-/ });

  const piped = await cliProcess(['user', 'create', '--email', 'op@example.test', '--role', 'operator', '--password-stdin', '--json'], 'a chosen passphrase\n');
  t.equal(piped.code, 0, piped.stderr);
  t.notOk('password' in (JSON.parse(piped.stdout) as object), 'no generated password printed');
  const [stored] = await world.withHub((ctx) => ctx.db.db.select().from(users).where(eq(users.email, 'op@example.test')));
  t.ok(stored && (await verifyPassword(stored.passwordHash, 'a chosen passphrase')), 'the password is what was piped, less the newline');
});
