import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyChain } from '../db/chain.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { decommission } from '../collectors/decommission.ts';
import { listKeys } from '../collectors/list-keys.ts';
import { issueProvisioningToken } from '../collectors/provisioning.ts';
import { cancelReplacement, markForReplacement } from '../collectors/replace.ts';
import { revokeKey } from '../collectors/revoke-key.ts';
import { rotateKey } from '../collectors/rotate-key.ts';
import { collectorStatus, listCollectors } from '../collectors/status.ts';
import { resumeCollector, suspendCollector } from '../collectors/suspend.ts';
import { updateConfig } from '../collectors/update-config.ts';
import { wipeCollector } from '../collectors/wipe.ts';
import { number, one, refuseSecretsOnArgv, UsageError, type Action } from './arguments.ts';
import { CAMERA_OPTIONS, CAMERA_OPTIONS_USAGE, CAMERA_USAGE, planCameraCommand } from './camera-commands.ts';
import { HUB_CERTIFICATE_USAGE, planHubCertificateCommand } from './hub-certificate-commands.ts';

export const USAGE = `usage: npm run hub -- <command> [--json]

  collector create --site-name NAME [--site-address TEXT] [--lat DEG --lon DEG] [--config FILE]
  collector provision-token <collector-id>
  collector list
  collector status <collector-id>
  collector rotate-key <collector-id> [--grace-hours N]     (default 24)
  collector revoke-key <key-id> --reason TEXT
  collector keys <collector-id>
  collector decommission <collector-id> [--reason TEXT]
  collector config <collector-id> --file CONFIG.json
  collector wipe <collector-id>
  collector suspend <collector-id> [--reason TEXT]       uploads refused until resumed; the box keeps buffering
  collector resume <collector-id>
  collector replace <collector-id>                       claim code for a new box; the old one is cut off when the new one claims
  collector replace-cancel <collector-id>
${CAMERA_USAGE}
${HUB_CERTIFICATE_USAGE}
  chain verify <collector-id>
  worker                                                 the alert worker as its own process (until SIGTERM)
  export verify <file.zip> [--public-key BASE64]         check an evidence export offline
  retention [--dry-run]                                  one retention run now (docs/retention.md)
  backup <dir>                                           database and images while the hub runs (docs/operations.md)
  restore <dir>                                          rebuild a hub from a backup on an empty server

${CAMERA_OPTIONS_USAGE}

Actions are recorded as the system actor ${SYSTEM_ACTOR.userId}.`;

const OPTIONS = {
  'site-name': { type: 'string' },
  'site-address': { type: 'string' },
  lat: { type: 'string' },
  lon: { type: 'string' },
  config: { type: 'string' },
  file: { type: 'string' },
  'grace-hours': { type: 'string' },
  reason: { type: 'string' },
  ...CAMERA_OPTIONS,
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

export type CliOptions = ReturnType<typeof parseCommandLine>['options'];

/** `--lon -0.12` would read as an option to parseArgs: join a negative number to its flag. */
function joinNegativeNumbers(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    const next = argv[i + 1];
    if ((token === '--lat' || token === '--lon') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${token}=${next}`);
      i += 1;
    } else {
      out.push(token);
    }
  }
  return out;
}

export function parseCommandLine(argv: readonly string[]) {
  refuseSecretsOnArgv(argv);
  try {
    const { values, positionals } = parseArgs({ args: joinNegativeNumbers(argv), options: OPTIONS, allowPositionals: true, strict: true });
    return { positionals, options: values };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

async function jsonObjectFile(path: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${path} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${path} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * Checks the command line and returns what to run, so usage mistakes are reported before
 * the database is opened (a PGlite start takes seconds).
 */
export function planCommand(positionals: readonly string[], options: CliOptions): Action {
  const [group, verb] = positionals;
  if (group === 'camera') return planCameraCommand(positionals, options);
  if (group === 'hub-certificate') return planHubCertificateCommand(positionals);
  const key = `${group ?? ''} ${verb ?? ''}`;
  switch (key) {
    case 'collector create': {
      one(positionals, 1, 'verb');
      const siteName = options['site-name'];
      if (siteName === undefined) throw new UsageError('--site-name is required');
      const latitude = number(options.lat, 'lat');
      const longitude = number(options.lon, 'lon');
      const configFile = options.config;
      return async (ctx, out) => {
        const created = await createCollector(ctx, SYSTEM_ACTOR, {
          siteName,
          ...(options['site-address'] !== undefined ? { siteAddress: options['site-address'] } : {}),
          ...(latitude !== undefined ? { latitude } : {}),
          ...(longitude !== undefined ? { longitude } : {}),
          ...(configFile !== undefined ? { config: await jsonObjectFile(configFile) } : {}),
        });
        out.record({
          collector_id: created.collectorId,
          claim_code: created.claimCode,
          claim_code_expires_at: created.claimCodeExpiresAt,
          hub_certificate_sha256: ctx.config.certificateSha256 ?? null,
        });
        return 0;
      };
    }
    case 'collector provision-token': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const issued = await issueProvisioningToken(ctx, SYSTEM_ACTOR, id);
        out.record({ provisioning_token: issued.token, expires_at: issued.expiresAt, note: 'shown once; single use' });
        return 0;
      };
    }
    case 'collector list': {
      one(positionals, 1, 'verb');
      return async (ctx, out) => {
        const all = await listCollectors(ctx);
        out.table(
          all.map((c) => ({
            id: c.id,
            site: c.siteName,
            status: c.status,
            connectivity: c.connectivity,
            last_heartbeat_at: c.lastHeartbeatAt,
            config_version: c.configVersion,
          })),
        );
        return 0;
      };
    }
    case 'collector status': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const s = await collectorStatus(ctx, id);
        out.record({
          id: s.id,
          site_name: s.siteName,
          site_address: s.siteAddress,
          status: s.status,
          connectivity: s.connectivity,
          last_heartbeat_at: s.lastHeartbeatAt,
          heartbeat_interval_seconds: s.heartbeatIntervalSeconds,
          last_heartbeat: s.lastHeartbeat,
          config_version: s.configVersion,
          hardware_id: s.hardwareId,
          edge_version: s.edgeVersion,
          os_version: s.osVersion,
          claimed_at: s.claimedAt,
          claim_code_expires_at: s.claimCodeExpiresAt,
          created_at: s.createdAt,
        });
        return 0;
      };
    }
    case 'collector rotate-key': {
      const collectorId = one(positionals, 2, 'collector id');
      const grace = number(options['grace-hours'], 'grace-hours');
      return async (ctx, out) => {
        const rotated = await rotateKey(ctx, SYSTEM_ACTOR, { collectorId, ...(grace !== undefined ? { gracePeriodHours: grace } : {}) });
        out.record({ new_key: rotated.new_key, new_key_id: rotated.new_key_id, old_key_expires_at: rotated.old_key_expires_at, message: rotated.message });
        return 0;
      };
    }
    case 'collector revoke-key': {
      const keyId = one(positionals, 2, 'key id');
      const reason = options.reason;
      if (reason === undefined) throw new UsageError('--reason is required');
      return async (ctx, out) => {
        const revoked = await revokeKey(ctx, SYSTEM_ACTOR, { keyId, reason });
        out.record({ key_id: revoked.keyId, key_prefix: revoked.keyPrefix, collector_id: revoked.collectorId, revoked_at: revoked.revokedAt });
        return 0;
      };
    }
    case 'collector keys': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const keys = await listKeys(ctx, id);
        out.table(
          keys.map((k) => ({
            id: k.id,
            prefix: k.prefix,
            status: k.status,
            created_at: k.createdAt,
            expires_at: k.expiresAt,
            last_used_at: k.lastUsedAt,
            last_used_ip: k.lastUsedIp,
          })),
        );
        return 0;
      };
    }
    case 'collector decommission': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const result = await decommission(ctx, SYSTEM_ACTOR, id, options.reason);
        out.record({ collector_id: id, status: 'decommissioned', revoked_keys: result.revokedKeys });
        return 0;
      };
    }
    case 'collector config': {
      const id = one(positionals, 2, 'collector id');
      const file = options.file;
      if (file === undefined) throw new UsageError('--file is required');
      return async (ctx, out) => {
        const result = await updateConfig(ctx, SYSTEM_ACTOR, id, await jsonObjectFile(file));
        out.record({ collector_id: id, config_version: result.configVersion, command_id: result.commandId });
        return 0;
      };
    }
    case 'collector wipe': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const result = await wipeCollector(ctx, SYSTEM_ACTOR, id);
        out.record({ collector_id: id, command_id: result.commandId, note: 'delivered with the next heartbeat' });
        return 0;
      };
    }
    case 'collector suspend': {
      const id = one(positionals, 2, 'collector id');
      const reason = options.reason?.trim();
      // The admin API's limits (admin/collector-state-routes.ts): the reason goes to the audit log.
      if (reason !== undefined && (reason === '' || reason.length > 500)) throw new UsageError('--reason must be 1 to 500 characters');
      return async (ctx, out) => {
        const done = await suspendCollector(ctx, SYSTEM_ACTOR, id, reason);
        out.record({
          collector_id: id,
          status: 'disabled',
          suspended_at: done.suspendedAt,
          reason: reason ?? null,
          note: 'uploads are refused until resumed; the box keeps its readings and sends them then',
        });
        return 0;
      };
    }
    case 'collector resume': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const done = await resumeCollector(ctx, SYSTEM_ACTOR, id);
        out.record({ collector_id: id, status: 'active', suspended_seconds: done.suspendedSeconds });
        return 0;
      };
    }
    case 'collector replace': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const issued = await markForReplacement(ctx, SYSTEM_ACTOR, id);
        out.record({
          collector_id: issued.collectorId,
          pending_replacement: true,
          claim_code: issued.claimCode,
          claim_code_expires_at: issued.claimCodeExpiresAt,
          hub_certificate_sha256: ctx.config.certificateSha256 ?? null,
          note: "shown once: enter it on the new box's setup page; the old box keeps working until the new one claims, then its keys are revoked",
        });
        return 0;
      };
    }
    case 'collector replace-cancel': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        await cancelReplacement(ctx, SYSTEM_ACTOR, id);
        out.record({ collector_id: id, pending_replacement: false, note: 'the claim code no longer works; the current box stays' });
        return 0;
      };
    }
    case 'chain verify': {
      const id = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        const result = await verifyChain(ctx.db, id);
        if (result.ok) {
          out.record({
            collector_id: id,
            chain: 'intact',
            records: result.count,
            from: result.from ? `retention checkpoint at ${result.from.chain_seq} (${result.from.record_hash})` : 'genesis',
            // Positions the non-hit tier emptied (docs/adr/0007): linked through their tombstones.
            'removed by retention (tombstones)': result.removed ?? 0,
          });
          return 0;
        }
        out.record({ collector_id: id, chain: 'broken', ...result.brokenAt });
        return 1;
      };
    }
    default:
      throw new UsageError(group === undefined ? 'missing command' : `unknown command: ${positionals.slice(0, 2).join(' ')}`);
  }
}
