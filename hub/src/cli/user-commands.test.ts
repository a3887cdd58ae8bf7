import t from 'tap';
import { cliWorld } from './cli-world.test-helper.ts';

/** `user ...` as an admin runs it, in this process (cli-world.test-helper.ts), passwords piped on stdin. */
const world = await cliWorld(t, 'user-cli');
const cli = (args: string[], stdin?: string) => world.cli(['user', ...args], stdin);

t.test('create users, list, approve, change role, reset', async (t) => {
  const admin = await cli(['create', '--email', 'Root@Example.test', '--role', 'admin', '--json']);
  t.equal(admin.code, 0, admin.stderr);
  const created = JSON.parse(admin.stdout) as Record<string, unknown>;
  t.match(created, { email: 'root@example.test', role: 'admin', active: true, twofa_enrolled: false, password: /^[A-Za-z0-9_-]{20}$/ });

  const piped = await cli(['create', '--email', 'op@example.test', '--role', 'operator', '--password-stdin', '--json'], 'a chosen passphrase\n');
  t.equal(piped.code, 0, piped.stderr);
  t.notOk('password' in (JSON.parse(piped.stdout) as object), 'no password printed when piped');

  t.equal((await cli(['create', '--email', 'op@example.test', '--role', 'viewer'])).code, 1, 'taken email');
  t.equal((await cli(['create', '--email', 'x@example.test', '--role', 'boss'])).code, 2, 'bad role');
  t.equal((await cli(['create', '--email', 'y@example.test', '--role', 'viewer', '--password-stdin'], 'short\n')).code, 2, 'weak password');

  const role = await cli(['set-role', '--email', 'op@example.test', '--role', 'viewer', '--json']);
  t.match(JSON.parse(role.stdout), { role: 'viewer' });
  const off = await cli(['deactivate', '--email', 'op@example.test', '--json']);
  t.match(JSON.parse(off.stdout), { active: false });
  const list = await cli(['list', '--json']);
  t.same(
    (JSON.parse(list.stdout) as { email: string }[]).map((u) => u.email),
    ['root@example.test', 'op@example.test'],
  );
  const reset = await cli(['reset-password', '--email', 'root@example.test', '--json']);
  t.match(JSON.parse(reset.stdout), { password: /^[A-Za-z0-9_-]{20}$/ });
  t.not((JSON.parse(reset.stdout) as { password: string }).password, created['password']);
  t.equal((await cli(['reset-2fa', '--email', 'nobody@example.test'])).code, 1, 'unknown user');
  t.equal((await cli(['frobnicate'])).code, 2);
});
