/**
 * Users for end-to-end tests, the way an admin and a person make them: created with the hub
 * CLI (before the hub starts: PGlite opens in one process), then signed in over HTTP with
 * the password and a real TOTP enrollment (login, 2FA setup, code, backup codes saved).
 *
 * The CLI runs in the test's own process (`runCli` through cliInProcess, with the hub's
 * environment and the password on stdin), as the CLI tests do: a child per user (node, tsx
 * compiling the CLI, the database opened afresh) cost seconds each on a loaded machine, and
 * eleven files make one to four users. hub/src/cli/main.test.ts still runs the real binary.
 */
import { cliInProcess } from '../../hub/src/cli/cli-world.test-helper.ts';
import { totpCode } from '../../hub/src/auth/totp.ts';

export async function createUserWithCli(env: Record<string, string>, email: string, role: 'admin' | 'operator' | 'viewer', password: string): Promise<void> {
  const processEnv = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const run = await cliInProcess({ ...processEnv, ...env }, ['user', 'create', '--email', email, '--role', role, '--password-stdin'], password);
  if (run.code !== 0) throw new Error(`hub user create ${email} exited ${run.code}: ${run.stderr.trim()}`);
}

export interface HttpUser {
  cookie: string;
  /** The authenticator secret enrolled, to make codes for later sign-ins. */
  totpSecret: string;
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  put(path: string, body: unknown): Promise<Response>;
}

class Jar {
  private readonly values = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.values.delete(name);
      else this.values.set(name, value);
    }
  }
  header(): string {
    return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function signInOverHttp(hubUrl: string, email: string, password: string): Promise<HttpUser> {
  const jar = new Jar();
  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await fetch(`${hubUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    jar.take(res);
    return res;
  };
  const login = await call('POST', '/auth/login', { email, password });
  if (login.status !== 302) throw new Error(`login ${login.status}: ${await login.text()}`);
  const setup = (await (await call('GET', '/auth/2fa/setup')).json()) as { manual_entry_key: string };
  const verified = await call('POST', '/auth/2fa/setup/verify', { code: await totpCode(setup.manual_entry_key, new Date()) });
  if (verified.status !== 200) throw new Error(`2FA setup ${verified.status}: ${await verified.text()}`);
  const confirmed = await call('POST', '/auth/2fa/setup/confirm', {});
  if (confirmed.status !== 302) throw new Error(`2FA confirm ${confirmed.status}: ${await confirmed.text()}`);
  return {
    get cookie() {
      return jar.header();
    },
    totpSecret: setup.manual_entry_key,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body),
  };
}
