import { isValidTimeZone } from '@alpr/shared/detection/time';
// The wire shape, written once by the server's presenter (type-only: erased from the bundle).
import type { CameraRecord } from '../../collectors/cameras/list.ts';
import { hasOwnUrl, SNAPSHOT_FIELDS, snapshotBody, snapshotProblems, snapshotTarget, type SnapshotField, type SnapshotValues } from './snapshot-form.ts';

/*
 * The collector page's camera form without the DOM (client/cameras.ts draws it): which
 * fields a kind of camera needs, what is wrong with what was typed, and the body for
 * POST/PATCH /api/v1/admin/collectors/{id}/cameras. The rules mirror the hub's
 * (collectors/cameras/input.ts: addCameraBodySchema, shapeProblems) so a mistake is said as it is typed;
 * the hub still decides, and its 400 message is shown when it disagrees.
 */
export type Vendor = 'vendor_a' | 'vendor_b' | 'snapshot';
export type Mode = 'pull' | 'push';

/** Each vendor family by what an installer recognizes on the box or its login page. */
export const VENDOR_WORDS: Record<Vendor, string> = {
  vendor_a: 'ISAPI camera or NVR (Digest login)',
  vendor_b: 'Protect console (API key)',
  snapshot: 'Ordinary IP camera (plates read on the box)',
};

/** How the reads reach the collector, per family (the appliance's runners: docs/cameras.md). */
export const MODE_WORDS: Record<Vendor, Record<Mode, string>> = {
  vendor_a: { pull: 'The collector polls the camera', push: 'The camera sends to the collector' },
  vendor_b: { pull: 'The collector polls the console', push: 'The console streams live' },
  // An ordinary camera sends nothing by itself: the box always takes the frames (the form keeps it on pull).
  snapshot: { pull: 'The collector takes its frames and reads the plates', push: 'Not possible: the collector takes the frames' },
};

export type CameraField = 'name' | 'host' | 'port' | 'channel' | 'timezone' | 'username' | 'password' | 'token' | 'camera_ids' | SnapshotField;

/** The fields a kind and mode need; the form hides the rest (an ISAPI camera that pushes needs no address or login). */
export function fieldsFor(vendor: Vendor, mode: Mode): ReadonlySet<CameraField> {
  // No time zone: a snapshot carries no camera time, the box stamps the frames (docs/ordinary-cameras.md).
  if (vendor === 'snapshot') return new Set<CameraField>(['name', 'host', 'port', ...SNAPSHOT_FIELDS, 'username', 'password']);
  if (vendor === 'vendor_b') return new Set<CameraField>(['name', 'host', 'token', 'camera_ids', 'timezone']);
  if (mode === 'pull') return new Set<CameraField>(['name', 'host', 'port', 'channel', 'username', 'password', 'timezone']);
  return new Set<CameraField>(['name', 'timezone']);
}

/** What the form holds, as typed. */
export interface CameraFormValues extends SnapshotValues {
  name: string;
  vendor: Vendor;
  mode: Mode;
  host: string;
  port: string;
  channel: string;
  timezone: string;
  username: string;
  password: string;
  token: string;
  camera_ids: string;
  enabled: boolean;
}

export const EMPTY_FORM: CameraFormValues = {
  name: '',
  vendor: 'vendor_a',
  mode: 'pull',
  host: '',
  port: '',
  channel: '',
  timezone: '',
  username: '',
  password: '',
  token: '',
  camera_ids: '',
  snapshot_url: '',
  rtsp_url: '',
  frames_per_second: '',
  region: '',
  change_threshold: '',
  passage_gap_ms: '',
  enabled: true,
};

export const vendorOf = (text: string): Vendor => (text === 'vendor_b' || text === 'snapshot' ? text : 'vendor_a');
const modeOf = (text: string): Mode => (text === 'push' ? 'push' : 'pull');

/** The form filled in from a camera for an edit. Password and token stay blank: the hub never sends them. */
export function valuesOf(c: CameraRecord): CameraFormValues {
  return {
    name: c.name,
    vendor: vendorOf(c.vendor),
    mode: modeOf(c.mode),
    host: c.host ?? '',
    port: String(c.port),
    channel: String(c.channel),
    timezone: c.timezone,
    username: c.username ?? '',
    password: '',
    token: '',
    camera_ids: (c.camera_ids ?? []).join(', '),
    snapshot_url: c.snapshot_url ?? '',
    rtsp_url: c.rtsp_url ?? '',
    frames_per_second: c.frames_per_second === null ? '' : String(c.frames_per_second),
    region: c.region ?? '',
    change_threshold: c.change_threshold === null ? '' : String(c.change_threshold),
    passage_gap_ms: c.passage_gap_ms === null ? '' : String(c.passage_gap_ms),
    enabled: c.enabled,
  };
}

const cameraIds = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== '');

/**
 * Whether the password (or token) must be typed: always on an add, and on an edit when the
 * stored one no longer fits (none stored, or the username, address or kind changed: the hub
 * refuses to keep a login for another account or device). Otherwise blank means "keep".
 */
export function needsSecret(v: CameraFormValues, original: CameraRecord | undefined): boolean {
  // An ordinary camera may have no login at all: a password is asked for only with a username.
  if (v.vendor === 'snapshot' && v.username.trim() === '') return false;
  if (!original || !original.has_credentials) return true;
  if (v.vendor === 'snapshot' && original.vendor === 'snapshot') {
    const before = snapshotTarget(original.host ?? '', original.snapshot_url ?? '', original.rtsp_url ?? '');
    if (snapshotTarget(v.host.trim(), v.snapshot_url.trim(), v.rtsp_url.trim()) !== before) return true;
  }
  return v.vendor !== original.vendor || v.host.trim() !== (original.host ?? '') || v.username.trim() !== (original.username ?? '');
}

/**
 * Pure: the hint under the password on an edit, from the stored login and what is typed: keep
 * it, type it again (the username, address or kind changed), or, for an ordinary camera,
 * how to remove it and that clearing Username will.
 */
export function passwordHint(v: CameraFormValues, original: CameraRecord | undefined): string {
  if (original?.has_credentials !== true) return '';
  if (v.vendor === 'snapshot' && v.username.trim() === '') return "Username cleared: saving removes the camera's login.";
  if (needsSecret(v, original)) return 'The username, address or kind changed: enter the password again.';
  if (v.vendor === 'snapshot') return "Leave blank to keep the stored password. Clear Username to remove the camera's login.";
  return 'Leave blank to keep the stored password.';
}

const HOST = /^[A-Za-z0-9.:[\]-]+$/;
const WHOLE = /^\d+$/;
// Names go into chat messages and PDFs: no control characters (collectors/cameras/input.ts).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Pure: what is wrong with the typed values, per visible field, in words for the person typing. */
export function cameraFormProblems(v: CameraFormValues, original?: CameraRecord): Partial<Record<CameraField, string>> {
  const shown = fieldsFor(v.vendor, v.mode);
  const problems: Partial<Record<CameraField, string>> = {};
  const name = v.name.trim();
  if (name === '') problems.name = 'Enter a name, e.g. "Gate in".';
  else if (name.length > 100) problems.name = 'At most 100 characters.';
  else if (CONTROL.test(name)) problems.name = 'No control characters.';
  const host = v.host.trim();
  if (shown.has('host')) {
    if (host === '' && v.vendor === 'snapshot') {
      if (!hasOwnUrl(v)) problems.host = "Enter the camera's address, or a full snapshot URL or RTSP URL below.";
    } else if (host === '')
      problems.host = v.vendor === 'vendor_b' ? "Enter the console's address (host name or IP)." : "Enter the camera's address (host name or IP).";
    else if (host.length > 253 || !HOST.test(host)) problems.host = 'A host name or IP address: letters, digits, dots, dashes and colons only.';
  }
  const port = v.port.trim();
  if (shown.has('port') && port !== '' && !(WHOLE.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    problems.port = 'A port is a whole number from 1 to 65535 (blank: 80, or 443 with https).';
  }
  const channel = v.channel.trim();
  if (shown.has('channel') && channel !== '' && !(WHOLE.test(channel) && Number(channel) >= 1 && Number(channel) <= 999)) {
    problems.channel = 'A channel is a whole number from 1 to 999 (blank: 1).';
  }
  const zone = v.timezone.trim();
  if (zone !== '' && (zone.length > 64 || !isValidTimeZone(zone))) problems.timezone = 'Not a time zone: use a name like Europe/London (blank: UTC).';
  if (shown.has('username')) {
    if (v.username.trim() === '') {
      if (v.vendor !== 'snapshot' || v.password !== '') problems.username = 'Enter the username the camera accepts.';
    } else if (v.username.trim().length > 100) problems.username = 'At most 100 characters.';
  }
  const again = original?.has_credentials === true;
  if (shown.has('password')) {
    if (v.password === '' && needsSecret(v, original)) {
      problems.password = again ? 'Enter the password again: the username, address or kind changed.' : 'Enter the password.';
    } else if (v.password.length > 200) problems.password = 'At most 200 characters.';
  }
  if (shown.has('token')) {
    if (v.token === '' && needsSecret(v, original)) {
      problems.token = again ? 'Enter the API key again: the address or kind changed.' : "Enter the console's API key.";
    } else if (v.token.length > 500) problems.token = 'At most 500 characters.';
  }
  if (v.vendor === 'snapshot') Object.assign(problems, snapshotProblems(v));
  if (shown.has('camera_ids')) {
    const ids = cameraIds(v.camera_ids);
    if (ids.length > 256) problems.camera_ids = 'At most 256 camera ids.';
    else if (ids.some((id) => id.length > 64)) problems.camera_ids = 'A camera id has at most 64 characters.';
  }
  return problems;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Pure: the request body. An add sends what the kind needs; an edit sends only what changed
 * (fields the kind hides are left as they are). A password or token goes only when typed. A
 * username cleared on an edit removes the camera's login.
 */
export function cameraBody(v: CameraFormValues, original?: CameraRecord): Record<string, unknown> {
  const shown = fieldsFor(v.vendor, v.mode);
  const ids = cameraIds(v.camera_ids);
  const wanted: Record<string, unknown> = {
    name: v.name.trim(),
    vendor: v.vendor,
    mode: v.vendor === 'snapshot' ? 'pull' : v.mode,
    timezone: v.timezone.trim() || 'UTC',
    enabled: v.enabled,
    ...(shown.has('host') ? { host: v.host.trim() || null } : {}),
    ...(shown.has('port') ? { port: v.port.trim() === '' ? null : Number(v.port.trim()) } : {}),
    ...(shown.has('channel') ? { channel: v.channel.trim() === '' ? 1 : Number(v.channel.trim()) } : {}),
    // Blank: no login. On an edit of a camera that had one, that is `username: null`, which
    // removes it (an ordinary camera; the kinds that need one stop at cameraFormProblems).
    ...(shown.has('username') ? { username: v.username.trim() || null } : {}),
    ...(shown.has('camera_ids') ? { camera_ids: ids.length > 0 ? ids : null } : {}),
    ...(v.vendor === 'snapshot' ? snapshotBody(v) : {}),
  };
  const secrets = {
    ...(shown.has('password') && v.password !== '' ? { password: v.password } : {}),
    ...(shown.has('token') && v.token !== '' ? { token: v.token } : {}),
  };
  if (!original) {
    // An add names no null: absent means the hub's default (port 80/443, all console cameras).
    return { ...Object.fromEntries(Object.entries(wanted).filter(([, value]) => value !== null)), ...secrets };
  }
  const before: Record<string, unknown> = { ...original };
  const changed = Object.entries(wanted).filter(([key, value]) => {
    // A blank port means "the default": unchanged when the camera already has the default one.
    if (key === 'port' && value === null) return before['port'] !== (v.vendor === 'vendor_b' || original.tls === true ? 443 : 80);
    return !same(value, before[key]);
  });
  return { ...Object.fromEntries(changed), ...secrets };
}

/** The collector's last answer for a camera in plain words (CAMERA_OUTCOMES, docs/cameras-central.md). */
export function outcomeLabel(outcome: string | null): string {
  switch (outcome) {
    case 'connected':
      return 'Reading';
    case 'authentication_failed':
      return 'Authentication failed';
    case 'unreachable':
      return 'Unreachable';
    case 'clock_warning':
      return 'Clock is off';
    case 'not_connected':
      return 'Not connected yet';
    case null:
      return 'No answer yet';
    default:
      return outcome;
  }
}

/**
 * A config push's answers, one line per camera, by the camera's name where the hub knows it
 * (a camera set up on the box's own page keeps its local id).
 */
export function cameraAnswerLines(
  acks: readonly { id: string; outcome: string; detail?: string | undefined }[] | null,
  names: ReadonlyMap<string, string>,
): string[] {
  return (acks ?? []).map((a) => `${names.get(a.id) ?? a.id}: ${outcomeLabel(a.outcome)}${a.detail ? ` (${a.detail})` : ''}`);
}

/** Where the collector reaches the camera, or that it needs no address. */
export function addressOf(c: CameraRecord): string {
  if (c.vendor === 'snapshot') {
    const url = c.rtsp_url ?? c.snapshot_url;
    if (url !== null && !url.startsWith('/')) return url;
    return `${c.host ?? ''}:${c.port}${url ?? ', usual snapshot paths'}`;
  }
  if (c.host === null) return c.mode === 'push' ? 'None needed: the camera sends' : '—';
  const place = `${c.host}:${c.port}`;
  if (c.vendor === 'vendor_b') return c.camera_ids?.length ? `${place}, cameras ${c.camera_ids.join(', ')}` : `${place}, all cameras`;
  return c.channel === 1 ? place : `${place}, channel ${c.channel}`;
}

export function kindOf(c: Pick<CameraRecord, 'vendor' | 'mode'>): { vendor: string; mode: string } {
  const vendor = vendorOf(c.vendor);
  return { vendor: VENDOR_WORDS[vendor], mode: MODE_WORDS[vendor][modeOf(c.mode)] };
}
