import type { z } from 'zod';
import { addCamera, editCamera, removeCamera, type CameraChange } from '../collectors/cameras/change.ts';
import { addCameraBodySchema, editCameraBodySchema, shapeProblems } from '../collectors/cameras/input.ts';
import { listCameras, presentCamera, type CameraRecord } from '../collectors/cameras/list.ts';
import { snapshotSettingsAfter } from '../collectors/cameras/snapshot-input.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { collectorStatus } from '../collectors/status.ts';
import { HubError } from '../platform/errors.ts';
import { number, one, readSecret, UsageError, type Action } from './arguments.ts';
import type { CliIo } from './cli-io.ts';

/**
 * `npm run hub -- camera ...`: a collector's central cameras (docs/cameras-central.md), the
 * same verbs and zod schemas as the admin API, so the command line accepts exactly what
 * `POST/PATCH /api/v1/admin/collectors/{id}/cameras` accepts. Secrets come from stdin only.
 */
/** The camera lines of the command list. */
export const CAMERA_USAGE = `  camera list <collector-id>
  camera add <collector-id> --name NAME --vendor vendor_a|vendor_b|snapshot --mode pull|push [camera options]
  camera edit <collector-id> <camera-id> [camera options]
  camera disable|enable|remove <collector-id> <camera-id>`;

/** What the camera options mean, after the command list. */
export const CAMERA_OPTIONS_USAGE = `camera options:
  --host HOST  --port N  --channel N  --timezone ZONE (IANA, e.g. Europe/London)  --username USER  --camera-ids ID,ID
  --password-stdin | --token-stdin   the camera's secret, read from stdin (never an argument: ps and shell history show those)
  --disabled                         configured but not running
  --no-login                         (edit) remove the camera's login: its username and its password or token
  --snapshot-url URL|/PATH  --rtsp-url URL  --frames-per-second N (0.2-10)  --region us|eu|br
  --change-threshold N (0-255)  --passage-gap-ms N (200-60000)   ordinary cameras only (docs/ordinary-cameras.md)
  vendor_a = ISAPI camera or NVR (Digest login): pull needs --host, --username and --password-stdin; push needs none
  vendor_b = Protect console (API key): needs --host and --token-stdin
  snapshot = ordinary IP camera, read on the box: pull; --host, an absolute --snapshot-url or --rtsp-url;
             a login as --username and --password-stdin (never in the URL: ps and shell history show arguments)
  An edit changes only the options given; one that changes the username or host needs the password (or token) again.`;

export const CAMERA_OPTIONS = {
  name: { type: 'string' },
  vendor: { type: 'string' },
  mode: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  channel: { type: 'string' },
  timezone: { type: 'string' },
  username: { type: 'string' },
  'camera-ids': { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'token-stdin': { type: 'boolean' },
  disabled: { type: 'boolean' },
  'no-login': { type: 'boolean' },
  'snapshot-url': { type: 'string' },
  'rtsp-url': { type: 'string' },
  'frames-per-second': { type: 'string' },
  region: { type: 'string' },
  'change-threshold': { type: 'string' },
  'passage-gap-ms': { type: 'string' },
} as const;

type OptionValue<T> = T extends { type: 'string' } ? string : boolean;
export type CameraOptions = { [K in keyof typeof CAMERA_OPTIONS]?: OptionValue<(typeof CAMERA_OPTIONS)[K]> };

/** Body fields whose flag is not `--` + the field name. */
const FLAGS: Record<string, string> = { password: '--password-stdin', token: '--token-stdin', enabled: '--disabled' };
const flagOf = (field: string): string => FLAGS[field] ?? `--${field.replaceAll('_', '-')}`;

/** `field: why` (the verbs' and shapeProblems' form) in the command line's words: `--flag: why`. */
function flagged(problem: string): string {
  const at = problem.indexOf(': ');
  return at < 0 ? problem : `${flagOf(problem.slice(0, at))}: ${problem.slice(at + 2)}`;
}

/** The schema's verdict as one line naming the flag; zod never echoes a string's value, so a secret stays out of it. */
function valid<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(issue ? `${flagOf(String(issue.path[0] ?? 'value'))}: ${issue.message}` : 'invalid camera');
}

function cameraFields(options: CameraOptions): Record<string, unknown> {
  if (options.vendor !== undefined && options.vendor !== 'vendor_a' && options.vendor !== 'vendor_b' && options.vendor !== 'snapshot') {
    throw new UsageError(
      '--vendor must be vendor_a (ISAPI camera or NVR, Digest login), vendor_b (Protect console, API key) or snapshot (ordinary IP camera, read on the box)',
    );
  }
  for (const flag of ['snapshot-url', 'rtsp-url'] as const) {
    // A login in an argument is seen by anyone on the machine (ps, shell history); the API takes one out of the URL, the CLI refuses it.
    if (options[flag] !== undefined && /^[a-z]+:\/\/[^/?#]*@/i.test(options[flag])) {
      throw new UsageError(`--${flag}: put the login in --username and --password-stdin, not in the URL (ps and shell history show arguments)`);
    }
  }
  if (options.mode !== undefined && options.mode !== 'pull' && options.mode !== 'push') {
    throw new UsageError('--mode must be pull (the collector polls the camera) or push (the camera sends to the collector)');
  }
  if (options['no-login'] && (options.username !== undefined || options['password-stdin'] || options['token-stdin'])) {
    throw new UsageError('--no-login removes the login: give no --username, --password-stdin or --token-stdin with it');
  }
  const fields: Record<string, unknown> = {
    name: options.name,
    vendor: options.vendor,
    mode: options.mode,
    host: options.host,
    port: number(options.port, 'port'),
    channel: number(options.channel, 'channel'),
    timezone: options.timezone,
    // null: the API's way to remove the login (collectors/cameras/change.ts editCamera).
    username: options['no-login'] ? null : options.username,
    camera_ids: options['camera-ids']
      ?.split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
    enabled: options.disabled ? false : undefined,
    snapshot_url: options['snapshot-url'],
    rtsp_url: options['rtsp-url'],
    frames_per_second: number(options['frames-per-second'], 'frames-per-second'),
    region: options.region,
    change_threshold: number(options['change-threshold'], 'change-threshold'),
    passage_gap_ms: number(options['passage-gap-ms'], 'passage-gap-ms'),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

type SecretField = 'password' | 'token';

function secretField(options: CameraOptions): SecretField | undefined {
  if (options['password-stdin'] && options['token-stdin']) throw new UsageError('give --password-stdin or --token-stdin, not both: stdin holds one secret');
  return options['password-stdin'] ? 'password' : options['token-stdin'] ? 'token' : undefined;
}

async function withSecret(fields: Record<string, unknown>, secret: SecretField | undefined, io: CliIo): Promise<Record<string, unknown>> {
  if (secret === undefined) return fields;
  const value = await readSecret(secret === 'password' ? "The camera's password" : "The console's API key or token", io);
  if (value === '') throw new UsageError(`--${secret}-stdin: nothing was read from stdin`);
  return { ...fields, [secret]: value };
}

/** The verbs refuse a camera that cannot run (`invalid request body: field: why`): a usage mistake here, named by its flag. */
async function asUsage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HubError && err.code === 'bad_request') throw new UsageError(flagged(err.message.replace(/^invalid request body: /, '')));
    throw err;
  }
}

const changed = (change: CameraChange) => ({
  ...presentCamera(change.camera),
  config_version: change.configVersion,
  command_id: change.commandId,
  note: change.commandId
    ? "sent with the collector's next heartbeat; its answer shows in camera list (last_outcome)"
    : 'the collector receives it when it is claimed',
});

const listed = (c: CameraRecord) => ({
  id: c.id,
  name: c.name,
  vendor: c.vendor,
  mode: c.mode,
  address: c.host === null ? (c.snapshot_url ?? c.rtsp_url) : `${c.host}:${c.port}`,
  enabled: c.enabled,
  has_credentials: c.has_credentials,
  last_outcome: c.last_outcome,
  last_outcome_at: c.last_outcome_at,
});

/** `camera <verb> <collector-id> <camera-id>`: both ids, nothing after. */
function ids(positionals: readonly string[]): { collectorId: string; cameraId: string } {
  if (positionals[2] === undefined) throw new UsageError('missing collector id');
  return { collectorId: positionals[2], cameraId: one(positionals, 3, 'camera id') };
}

/** Checks a `camera ...` command line (argv after `npm run hub --`) before the database is opened. */
export function planCameraCommand(positionals: readonly string[], options: CameraOptions): Action {
  const verb = positionals[1];
  switch (verb) {
    case 'list': {
      const collectorId = one(positionals, 2, 'collector id');
      return async (ctx, out) => {
        await collectorStatus(ctx, collectorId); // an unknown collector is said, not listed as empty
        out.table((await listCameras(ctx.db, collectorId)).map(listed));
        return 0;
      };
    }
    case 'add': {
      const collectorId = one(positionals, 2, 'collector id');
      for (const flag of ['name', 'vendor', 'mode'] as const) if (options[flag] === undefined) throw new UsageError(`--${flag} is required`);
      if (options['no-login']) throw new UsageError('--no-login removes the login of a camera already added (camera edit); an add without a login gives none');
      const secret = secretField(options);
      const fields = cameraFields(options);
      const body = valid(addCameraBodySchema, fields);
      const problem = shapeProblems({
        vendor: body.vendor,
        mode: body.mode,
        host: body.host ?? null,
        username: body.username ?? null,
        hasPassword: secret === 'password',
        hasToken: secret === 'token',
        latitude: null,
        longitude: null,
        snapshot: snapshotSettingsAfter(null, body),
      })[0];
      if (problem !== undefined) throw new UsageError(flagged(problem));
      return async (ctx, out, io) => {
        const input = valid(addCameraBodySchema, await withSecret(fields, secret, io));
        out.record(changed(await asUsage(addCamera(ctx, SYSTEM_ACTOR, collectorId, input))));
        return 0;
      };
    }
    case 'edit': {
      const { collectorId, cameraId } = ids(positionals);
      const secret = secretField(options);
      const fields = cameraFields(options);
      if (Object.keys(fields).length === 0 && secret === undefined) throw new UsageError('nothing to change: give the camera options to change');
      valid(editCameraBodySchema, fields);
      return async (ctx, out, io) => {
        const input = valid(editCameraBodySchema, await withSecret(fields, secret, io));
        out.record(changed(await asUsage(editCamera(ctx, SYSTEM_ACTOR, collectorId, cameraId, input))));
        return 0;
      };
    }
    case 'disable':
    case 'enable': {
      const { collectorId, cameraId } = ids(positionals);
      return async (ctx, out) => {
        out.record(changed(await asUsage(editCamera(ctx, SYSTEM_ACTOR, collectorId, cameraId, { enabled: verb === 'enable' }))));
        return 0;
      };
    }
    case 'remove': {
      const { collectorId, cameraId } = ids(positionals);
      return async (ctx, out) => {
        const change = await removeCamera(ctx, SYSTEM_ACTOR, collectorId, cameraId);
        out.record({
          camera_id: change.camera.id,
          name: change.camera.name,
          removed: true,
          config_version: change.configVersion,
          command_id: change.commandId,
        });
        return 0;
      };
    }
    default:
      throw new UsageError(verb === undefined ? 'missing camera verb' : `unknown command: camera ${verb}`);
  }
}
