import { cameraConfigSchema, type CameraConfig } from '../cameras/config.ts';
import type { CameraCredentials } from '../vault/credentials.ts';

/**
 * The add-camera form (or its JSON twin) to a camera entry for the local TOML layer and
 * its credentials for the vault. Pure. The secret fields are split off here so nothing
 * downstream can write them into the TOML or echo them into a page.
 */
export const CAMERA_FORM_FIELDS = [
  'id',
  'name',
  'vendor',
  'mode',
  'host',
  'port',
  'channel',
  'timezone',
  'mac',
  'username',
  'push_source',
  'mqtt_url',
  'mqtt_topic_prefix',
  'snapshot_url',
  'rtsp_url',
  'frames_per_second',
  'region',
] as const;
export type CameraFormField = (typeof CAMERA_FORM_FIELDS)[number];

/** What the page may show again after a refused submit: no password, no token. */
export type CameraFormValues = Partial<Record<CameraFormField, string>>;

/** The TOML entry: what the person typed (defaults stay defaults, not pinned), secrets excluded. */
export type LocalCameraEntry = Record<string, string | number>;

export type CameraFormResult =
  | { ok: true; entry: LocalCameraEntry; credentials: CameraCredentials; camera: CameraConfig; values: CameraFormValues }
  | { ok: false; errors: string[]; values: CameraFormValues };

const text = (raw: unknown): string | undefined => {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const s = String(raw).trim();
  return s === '' ? undefined : s;
};

/**
 * `kept`: on an edit, the credentials already in the vault; a secret left blank keeps its
 * stored value, so validation sees the camera as it will run.
 */
export function parseCameraForm(body: Record<string, unknown>, kept: CameraCredentials = {}): CameraFormResult {
  const values: CameraFormValues = {};
  for (const field of CAMERA_FORM_FIELDS) {
    const v = text(body[field]);
    if (v !== undefined) values[field] = v;
  }
  const errors: string[] = [];
  const integer = (field: 'port' | 'channel'): number | undefined => {
    const v = values[field];
    if (v === undefined) return undefined;
    if (!/^\d{1,5}$/.test(v)) {
      errors.push(`${field}: a whole number`);
      return undefined;
    }
    return Number(v);
  };
  const port = integer('port');
  const channel = integer('channel');
  // A password may legitimately have surrounding spaces: only an empty one counts as absent.
  const password = typeof body['password'] === 'string' && body['password'] !== '' ? body['password'] : undefined;
  const token = text(body['token']);
  const pushSecret = text(body['push_secret']);
  const credentials: CameraCredentials = {
    ...(values.username !== undefined ? { username: values.username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(pushSecret !== undefined ? { pushSecret } : {}),
  };
  const entry: LocalCameraEntry = {};
  for (const field of ['id', 'name', 'vendor', 'mode', 'host', 'timezone', 'mac'] as const) {
    const v = values[field];
    if (v !== undefined) entry[field] = v;
  }
  if (values.push_source !== undefined) entry['pushSource'] = values.push_source;
  if (values.mqtt_url !== undefined) entry['mqttUrl'] = values.mqtt_url;
  if (values.mqtt_topic_prefix !== undefined) entry['mqttTopicPrefix'] = values.mqtt_topic_prefix;
  if (values.snapshot_url !== undefined) entry['snapshotUrl'] = values.snapshot_url;
  if (values.rtsp_url !== undefined) entry['rtspUrl'] = values.rtsp_url;
  if (values.region !== undefined) entry['region'] = values.region;
  if (values.frames_per_second !== undefined) {
    const fps = Number(values.frames_per_second);
    if (!/^\d{1,2}(\.\d{1,2})?$/.test(values.frames_per_second) || !Number.isFinite(fps)) errors.push('frames_per_second: a number such as 4 or 0.5');
    else entry['framesPerSecond'] = fps;
  }
  if (port !== undefined) entry['port'] = port;
  if (channel !== undefined) entry['channel'] = channel;
  if (errors.length > 0) return { ok: false, errors, values };

  const parsed = cameraConfigSchema.safeParse({ ...kept, ...entry, ...credentials });
  if (!parsed.success) {
    return {
      ok: false,
      // Issue messages name the field; the value is never quoted back (it may be a secret).
      errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'camera'}: ${i.message}`),
      values,
    };
  }
  if (parsed.data.mac !== undefined) entry['mac'] = parsed.data.mac;
  return { ok: true, entry, credentials, camera: parsed.data, values };
}

/** A stored entry (and its username) back into form values for the edit form: never a secret. */
export function formValuesOf(entry: Record<string, unknown>, stored: CameraCredentials | undefined): CameraFormValues {
  const values: CameraFormValues = {};
  const keyOf: Partial<Record<CameraFormField, string>> = {
    push_source: 'pushSource',
    snapshot_url: 'snapshotUrl',
    rtsp_url: 'rtspUrl',
    frames_per_second: 'framesPerSecond',
  };
  for (const field of CAMERA_FORM_FIELDS) {
    const raw = entry[keyOf[field] ?? field];
    if (typeof raw === 'string' || typeof raw === 'number') values[field] = String(raw);
  }
  if (stored?.username !== undefined && values.username === undefined) values.username = stored.username;
  return values;
}
