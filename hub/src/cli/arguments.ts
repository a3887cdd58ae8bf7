/**
 * What every `npm run hub -- <group> <verb>` planner shares: the usage error (exit code 2,
 * usage printed), positional and number checks, and a secret read from stdin.
 */
import type { CollectorContext } from '../collectors/context.ts';
import type { CliIo } from './cli-io.ts';
import type { Output } from './output.ts';

/** A mistake in the command line itself: usage is printed, exit code 2. */
export class UsageError extends Error {}

/** The positional at `index`, the last one the command takes. */
export function one(positionals: readonly string[], index: number, what: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`missing ${what}`);
  if (positionals.length > index + 1) throw new UsageError(`unexpected argument ${positionals[index + 1]}`);
  return value;
}

export function number(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number`);
  return value;
}

/**
 * Options that would carry a secret on the command line, where `ps` and the shell history
 * show it to anyone on the machine: refused by name, before parsing, without echoing the value.
 */
const SECRET_ON_ARGV = /^--(password|token)(=|$)/;

export function refuseSecretsOnArgv(argv: readonly string[]): void {
  for (const token of argv) {
    const found = SECRET_ON_ARGV.exec(token);
    if (found) {
      const name = found[1] ?? 'password';
      throw new UsageError(
        `--${name} is not accepted on the command line (ps and the shell history would show it): pipe it in with --${name}-stdin instead (e.g. read -rs S; printf '%s' "$S" | npm run hub -- ... --${name}-stdin)`,
      );
    }
  }
}

/**
 * One secret from stdin, the way `docker login --password-stdin` takes it: everything up to
 * the end of input, less the one trailing newline the shell or `echo` adds (it is not part of
 * the password, and a camera would refuse the login with it).
 */
export async function readSecret(what: string, io: CliIo): Promise<string> {
  if (io.stdinIsTty) io.stderr(`${what}, then Enter and Ctrl-D: `);
  return readStdinText(io);
}

/** All of stdin as text, less the one trailing newline (the shell's, not the secret's); no prompt. */
export async function readStdinText(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin()) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** A validated command, ready to run against the database; resolves to the exit code. `io` for a secret on stdin. */
export type Action = (ctx: CollectorContext, out: Output, io: CliIo) => Promise<number>;
