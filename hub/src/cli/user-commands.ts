/**
 * `npm run hub -- user ...`: account administration from the command line (the first
 * admin has to come from somewhere). Parsed here, not in collector-commands.ts, because
 * its options differ; main.ts hands over any argv starting with `user`.
 */
import { parseArgs } from 'node:util';
import { createUser } from '../auth/registration.ts';
import { generatePassword } from '../auth/passwords.ts';
import { listResetRequests, listUsers, resetTwoFactor, setActive, setPassword, setRole } from '../auth/user-admin.ts';
import { SYSTEM_ACTOR_ID } from '../platform/actor.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { userRoleSchema } from '../db/schema/users.ts';
import { HubError } from '../platform/errors.ts';
import type { AuthContext } from '../auth/context.ts';
import { readStdinText } from './arguments.ts';
import type { CliIo } from './cli-io.ts';
import type { Output } from './output.ts';
import { runOnDatabase } from './run-action.ts';

export const USER_USAGE = `usage: npm run hub -- user <verb> [--json]

  user create --email EMAIL --role admin|operator|viewer [--password-stdin]
  user list
  user activate --email EMAIL          (approve a self-registered account)
  user deactivate --email EMAIL
  user set-role --email EMAIL --role ROLE
  user reset-2fa --email EMAIL         (next login goes to 2FA setup)
  user reset-password --email EMAIL [--password-stdin]
  user reset-requests                  (forgot-password requests, last 30 days)

Without --password-stdin a random password is generated and printed once.`;

const OPTIONS = {
  email: { type: 'string' },
  role: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

class UserUsageError extends Error {}

type UserAction = (ctx: AuthContext, out: Output, io: CliIo) => Promise<number>;

function plan(verb: string | undefined, options: ReturnType<typeof parse>['values']): UserAction {
  const email = (): string => {
    if (options.email === undefined) throw new UserUsageError('--email is required');
    return options.email;
  };
  const role = () => {
    const parsed = userRoleSchema.safeParse(options.role);
    if (!parsed.success) throw new UserUsageError('--role must be admin, operator or viewer');
    return parsed.data;
  };
  const password = async (io: CliIo): Promise<{ value: string; generated: boolean }> =>
    options['password-stdin'] ? { value: await readStdinText(io), generated: false } : { value: generatePassword(), generated: true };
  const show = (u: { id: string; email: string; role: string; isActive: boolean; twofaEnrolled: boolean }) => ({
    id: u.id,
    email: u.email,
    role: u.role,
    active: u.isActive,
    twofa_enrolled: u.twofaEnrolled,
  });
  switch (verb) {
    case 'create': {
      const e = email();
      const r = role();
      return async (ctx, out, io) => {
        const pw = await password(io);
        const user = await createUser(ctx, { email: e, password: pw.value, role: r });
        if (!user) throw new HubError('conflict', `a user with email ${e} already exists`);
        out.record({ ...show(user), ...(pw.generated ? { password: pw.value, note: 'shown once; 2FA setup follows the first login' } : {}) });
        return 0;
      };
    }
    case 'list':
      return async (ctx, out) => {
        out.table((await listUsers(ctx)).map(show));
        return 0;
      };
    case 'activate':
    case 'deactivate': {
      const e = email();
      return async (ctx, out) => {
        out.record(show(await setActive(ctx, SYSTEM_ACTOR_ID, e, verb === 'activate')));
        return 0;
      };
    }
    case 'set-role': {
      const e = email();
      const r = role();
      return async (ctx, out) => {
        out.record(show(await setRole(ctx, SYSTEM_ACTOR_ID, e, r)));
        return 0;
      };
    }
    case 'reset-2fa': {
      const e = email();
      return async (ctx, out) => {
        out.record(show(await resetTwoFactor(ctx, SYSTEM_ACTOR_ID, e)));
        return 0;
      };
    }
    case 'reset-password': {
      const e = email();
      return async (ctx, out, io) => {
        const pw = await password(io);
        const user = await setPassword(ctx, SYSTEM_ACTOR_ID, e, pw.value);
        out.record({ ...show(user), ...(pw.generated ? { password: pw.value, note: 'shown once' } : {}) });
        return 0;
      };
    }
    case 'reset-requests':
      return async (ctx, out) => {
        out.table((await listResetRequests(ctx)).map((r) => ({ at: r.at, user_id: r.userId, email: r.email, ip: r.ip })));
        return 0;
      };
    default:
      throw new UserUsageError(verb === undefined ? 'missing user verb' : `unknown command: user ${verb}`);
  }
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UserUsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Runs `user <verb> ...` (argv without the leading `user`); resolves to the exit code. */
export async function runUserCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let action: UserAction;
  let json = false;
  try {
    const { values, positionals } = parse(argv);
    if (values.help) {
      io.stdout(`${USER_USAGE}\n`);
      return 0;
    }
    if (positionals.length > 1) throw new UserUsageError(`unexpected argument ${positionals[1]}`);
    json = values.json === true;
    action = plan(positionals[0], values);
  } catch (err) {
    if (!(err instanceof UserUsageError)) throw err;
    io.stderr(`${err.message}\n${USER_USAGE}\n`);
    return 2;
  }
  const config = loadHubConfig(io.env);
  return runOnDatabase(io, config, json, action);
}
