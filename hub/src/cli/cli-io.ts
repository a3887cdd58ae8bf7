/**
 * What a CLI command takes from the world outside it: the environment its configuration is
 * read from, where results (stdout) and messages and logs (stderr) go, and stdin for a
 * piped secret. main.ts binds it to the real process; tests bind it to strings, so a
 * command runs in the test's own process with its own environment.
 */
import { isatty } from 'node:tty';
import { Writable } from 'node:stream';
import { createLog, type Log } from '../platform/log.ts';

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input, asked for only by a command that reads a secret (the process's stream is created on first use). */
  stdin(): AsyncIterable<Buffer | string>;
  /** A person at a terminal, not a pipe: a secret is then prompted for (on stderr). */
  stdinIsTty: boolean;
}

/** The real process: its environment, its stdout, stderr and stdin. */
export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: () => process.stdin,
    stdinIsTty: isatty(0),
  };
}

/** The log a command writes to stderr. `quiet`: at the default `info` a command would echo every action it just printed, so warn and worse only. */
export function cliLog(io: CliIo, configuredLevel: string, quiet = true): Log {
  const level = quiet && configuredLevel === 'info' ? 'warn' : configuredLevel;
  const stderr = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stderr(String(chunk));
      done();
    },
  });
  return createLog(level, stderr);
}
