import type { CommandAckRequest } from '@alpr/shared/protocol/collector';
import { runConfigUpdate, type ConfigVersionCell } from './config-update.ts';
import type { CommandRunnerDeps } from './ports.ts';
import { verifyCommand } from './verify-command.ts';
import { runRotateKey } from './rotate-key.ts';
import { runTrustHubCertificate } from './trust-hub-certificate.ts';
import { runWipe } from './wipe.ts';

/**
 * The command runner: verifies each command from a heartbeat response and runs it. One
 * command at a time (a config_update's watch must finish before a wipe stops everything).
 *
 * Refused commands (unsigned, bad signature, another collector's) are logged, reported in
 * the next heartbeat's `errors`, and acknowledged `failed` when their id can be read: the
 * hub then shows the refusal to the admin and stops redelivering it. An ack cannot do harm:
 * the hub accepts it only for a command it really queued for this collector (404 otherwise).
 */
export type CommandOutcome =
  | { kind: 'ack'; id: string; ack: CommandAckRequest; afterAck?: () => Promise<void>; refused?: boolean }
  /** Not even an id to acknowledge: logged and reported only. */
  | { kind: 'refused'; reason: string };

export interface CommandRunner {
  handle(raw: unknown): Promise<CommandOutcome>;
  configVersion(): number;
}

export function createCommandRunner(deps: CommandRunnerDeps): CommandRunner {
  let configVersion = deps.initialConfigVersion;
  const version: ConfigVersionCell = { get: () => configVersion, set: (v) => (configVersion = v) };
  const trust = { collectorId: deps.collectorId, hubPublicKey: deps.hubPublicKey };
  let chain: Promise<unknown> = Promise.resolve();
  // After a wipe nothing else runs: the data it would act on is gone, a restart follows.
  let wiped = false;

  async function run(raw: unknown): Promise<CommandOutcome> {
    if (wiped) return { kind: 'refused', reason: 'appliance wiped: command ignored' };
    const verdict = verifyCommand(raw, trust);
    if (!verdict.ok) {
      deps.log.error({ command_id: verdict.id ?? null, reason: verdict.reason }, 'command refused');
      if (verdict.id === undefined) return { kind: 'refused', reason: `command refused: ${verdict.reason}` };
      return { kind: 'ack', id: verdict.id, ack: { status: 'failed', detail: verdict.reason }, refused: true };
    }
    const { command } = verdict;
    deps.log.info({ command_id: command.id, type: command.type }, 'running command');
    try {
      if (command.type === 'config_update') return { kind: 'ack', id: command.id, ack: await runConfigUpdate(deps, version, command) };
      if (command.type === 'rotate_key') return { kind: 'ack', id: command.id, ack: await runRotateKey(deps, command) };
      if (command.type === 'trust_hub_certificate') return { kind: 'ack', id: command.id, ack: await runTrustHubCertificate(deps, command) };
      wiped = true;
      const result = await runWipe(deps);
      return { kind: 'ack', id: command.id, ack: result.ack, afterAck: result.afterAck };
    } catch (error) {
      deps.log.error({ err: error, command_id: command.id }, 'command failed');
      const detail = `${command.type} failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000);
      return { kind: 'ack', id: command.id, ack: { status: 'failed', detail } };
    }
  }

  return {
    handle(raw) {
      const result = chain.then(() => run(raw));
      chain = result.catch(() => undefined);
      return result;
    },
    configVersion: () => configVersion,
  };
}
