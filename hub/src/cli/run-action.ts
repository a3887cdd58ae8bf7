/**
 * One command's database life, shared by every command that opens the hub database: open it
 * as configured (DATABASE_URL, or the PGlite folder), run the action, close it before
 * returning, and turn a refusal into its exit code: 1 for a refusal the hub explains
 * (HubError), 2 for a usage mistake or invalid input. Anything else is a bug and is thrown.
 */
import { ZodError } from 'zod';
import { openDatabase } from '../db/client.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { systemClock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { HubError } from '../platform/errors.ts';
import { UsageError } from './arguments.ts';
import { cliLog, type CliIo } from './cli-io.ts';
import { createOutput, type Output } from './output.ts';

export type CommandContext = Pick<PlatformDeps, 'db' | 'clock' | 'log' | 'config'>;

export async function runOnDatabase(
  io: CliIo,
  config: HubConfig,
  json: boolean,
  action: (ctx: CommandContext, out: Output, io: CliIo) => Promise<number>,
): Promise<number> {
  const log = cliLog(io, config.logLevel);
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 2 });
  const out = createOutput(json, (line) => io.stdout(`${line}\n`));
  try {
    return await action({ db, clock: systemClock, log, config }, out, io);
  } catch (err) {
    if (err instanceof HubError) {
      io.stderr(`error (${err.code}): ${err.message}\n`);
      return 1;
    }
    if (err instanceof ZodError) {
      io.stderr(`invalid input: ${err.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}
