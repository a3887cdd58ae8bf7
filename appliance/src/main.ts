/**
 * The appliance process: read the environment (config/load.ts, the only reader of
 * process.env), create the appliance (runtime/appliance.ts), start it, map signals to
 * stop(). A start that cannot work (unreadable keystore, invalid configuration, port taken)
 * prints one clear line and exits 1; systemd shows it and retries.
 */
import { readEnvironment } from './config/load.ts';
import { createAppliance } from './runtime/appliance.ts';
import { hardwareIdentity } from './vault/hardware-identity.ts';

let environment;
try {
  environment = readEnvironment(process.env);
} catch (error) {
  process.stderr.write(`appliance cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const appliance = createAppliance(environment, {
  identity: hardwareIdentity(),
  // After a wipe: under systemd (Restart=always) the appliance comes back unclaimed with its setup page open.
  restart: async () => process.exit(0),
});

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`appliance stopping (${signal})\n`);
  // Everything committed is safe on disk; never let a stuck connection keep us alive.
  setTimeout(() => process.exit(1), 10_000).unref();
  await appliance.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

try {
  const listening = await appliance.start();
  process.send?.({ ready: true, port: listening.port });
} catch (error) {
  process.stderr.write(`appliance cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  await appliance.stop().catch(() => undefined);
  process.exit(1);
}
