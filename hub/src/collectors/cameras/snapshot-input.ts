import { z } from 'zod';
import { PLATE_REGIONS } from '@alpr/shared/detection/plate-regions';
import type { SnapshotSettings } from '../../db/schema/cameras.ts';

/**
 * The fields of an ordinary camera (`vendor: "snapshot"`, docs/ordinary-cameras.md) as an admin
 * enters them on the hub, and the rules between them. The bounds are the appliance's
 * (appliance/src/cameras/snapshot-config.ts): a camera the hub accepts is one the device runs,
 * so a mistake is refused here with a 400, not discovered on site as a rolled-back update.
 */

/** No whitespace and no control characters anywhere in a URL (a NUL is refused before this, at the body edge). */
const URL_CHARS = /^[^\s\p{Cc}]+$/u;

/**
 * Parses as a URL with a host: `http://` alone or `rtsp://:80/` would only fail on the device.
 * `http:///snap.jpg` is refused too: a URL parser reads `snap.jpg` as its host.
 */
function hasHost(text: string): boolean {
  if (!/^[a-z]+:\/\/[^/]/i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

const absoluteOrPath = (text: string): boolean => text.startsWith('/') || hasHost(text);

/**
 * Some cameras take the login in the query (`snapshot.cgi?user=admin&pwd=…`). The hub shows and
 * pushes URLs in clear, so such a URL is refused: the camera's Basic or Digest login (username
 * and password, escrowed) is the way, or the device's own setup page.
 */
const SECRET_QUERY = /[?&][^=&#]*(pass|pwd|token|secret|key)[^=&#]*=/i;
const noSecretInQuery = (text: string): boolean => !SECRET_QUERY.test(text);
const QUERY_SECRET_WHY = 'a password in the query would be kept and shown in clear: give it as username and password';

export const snapshotBodyFields = {
  /** An absolute `http(s)://` URL, or a path on `host` (`/cgi-bin/snapshot.cgi`). Absent: the usual vendor paths. */
  snapshot_url: z
    .string()
    .max(2000)
    .regex(/^(https?:\/\/|\/)/, 'an http:// or https:// URL, or a path on the host starting with /')
    .regex(URL_CHARS, 'no spaces or control characters')
    .refine(absoluteOrPath, 'not a URL with a host')
    .refine(noSecretInQuery, QUERY_SECRET_WHY),
  /** A stream the device reads through ffmpeg instead of snapshots. */
  rtsp_url: z
    .string()
    .max(2000)
    .regex(/^rtsps?:\/\//, 'an rtsp:// or rtsps:// URL')
    .regex(URL_CHARS, 'no spaces or control characters')
    .refine(hasHost, 'not a URL with a host')
    .refine(noSecretInQuery, QUERY_SECRET_WHY),
  /** 0.2 (one frame every 5 s) to 10 (more than a 2-core box reads). Device default 4. */
  frames_per_second: z.number().min(0.2).max(10),
  /** The plate formats the reader scores against. Absent: plate-likeness alone. */
  region: z.enum(PLATE_REGIONS),
  /** Mean grey difference (0-255) of two thumbnails above which a frame is read. Device default 4. */
  change_threshold: z.number().min(0).max(255),
  /** A passage ends after this long without a read of its plate. Device default 3000. */
  passage_gap_ms: z.number().int().min(200).max(60_000),
};

export type SnapshotBodyField = keyof typeof snapshotBodyFields;
export const SNAPSHOT_BODY_FIELDS = Object.keys(snapshotBodyFields) as SnapshotBodyField[];

/** The wire's snake_case names and the appliance's own. */
const SETTING_OF: Record<SnapshotBodyField, keyof SnapshotSettings> = {
  snapshot_url: 'snapshotUrl',
  rtsp_url: 'rtspUrl',
  frames_per_second: 'framesPerSecond',
  region: 'region',
  change_threshold: 'changeThreshold',
  passage_gap_ms: 'passageGapMs',
};

type SnapshotInput = { [K in SnapshotBodyField]?: z.infer<(typeof snapshotBodyFields)[K]> | null | undefined };

/**
 * Pure: the settings after an add (`before` null) or an edit: a field given replaces, `null`
 * clears (back to the device's default), absent keeps. Null when nothing is set.
 */
export function snapshotSettingsAfter(before: SnapshotSettings | null, input: SnapshotInput): SnapshotSettings | null {
  const after: Record<string, unknown> = { ...(before ?? {}) };
  for (const field of SNAPSHOT_BODY_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null) delete after[SETTING_OF[field]];
    else after[SETTING_OF[field]] = value;
  }
  return Object.keys(after).length > 0 ? (after as SnapshotSettings) : null;
}

/** An ordinary camera's settings as the API shows them (null: not set, the device's default applies). */
export interface SnapshotRecord {
  snapshot_url: string | null;
  rtsp_url: string | null;
  frames_per_second: number | null;
  region: string | null;
  change_threshold: number | null;
  passage_gap_ms: number | null;
}

export function presentSnapshotSettings(s: SnapshotSettings | null): SnapshotRecord {
  return {
    snapshot_url: s?.snapshotUrl ?? null,
    rtsp_url: s?.rtspUrl ?? null,
    frames_per_second: s?.framesPerSecond ?? null,
    region: s?.region ?? null,
    change_threshold: s?.changeThreshold ?? null,
    passage_gap_ms: s?.passageGapMs ?? null,
  };
}

/** True when the frames come from an absolute URL, so no `host` is needed. */
const hasOwnUrl = (s: SnapshotSettings | null): boolean => s?.rtspUrl !== undefined || (s?.snapshotUrl?.includes('://') ?? false);

/** What a camera needs as far as ordinary cameras go, as `field: why` (input.ts shapeProblems adds these). */
export function snapshotProblems(c: {
  vendor: string;
  mode: string;
  host: string | null;
  snapshot: SnapshotSettings | null;
  username: string | null;
  hasPassword: boolean;
  hasToken: boolean;
}): string[] {
  const s = c.snapshot;
  if (c.vendor !== 'snapshot') {
    const set = SNAPSHOT_BODY_FIELDS.find((field) => s?.[SETTING_OF[field]] !== undefined);
    return set ? [`${set}: for an ordinary camera (vendor snapshot) only`] : [];
  }
  const problems: string[] = [];
  if (c.mode !== 'pull') problems.push('mode: an ordinary camera is pull (the collector takes its frames)');
  if (s?.snapshotUrl !== undefined && s.rtspUrl !== undefined) problems.push('rtsp_url: give snapshot_url or rtsp_url, not both');
  if (!c.host && !hasOwnUrl(s)) problems.push('host: an ordinary camera needs host, an absolute snapshot_url, or rtsp_url');
  if (c.hasToken) problems.push('token: an ordinary camera logs in with username and password');
  if (c.username !== null && !c.hasPassword) problems.push('password: a camera login needs its password with the username');
  if (c.username === null && c.hasPassword) problems.push('username: a camera login needs its username with the password');
  return problems;
}

/**
 * Where a snapshot camera's frames come from, for the rule that a changed device needs its
 * password again (change.ts): the host names of its address and its URLs, as a set (a switch
 * from the RTSP stream to the snapshot URL of the same camera, or another port, is the same device).
 */
export function snapshotTarget(host: string, s: SnapshotSettings | null): string {
  const hostOf = (url: string | undefined): string => {
    if (url === undefined || url.startsWith('/')) return '';
    try {
      return new URL(url).hostname;
    } catch {
      return url;
    }
  };
  return [...new Set([host, hostOf(s?.snapshotUrl), hostOf(s?.rtspUrl)].filter((h) => h !== ''))].sort().join(' ');
}

export interface UrlLogin {
  username?: string;
  password?: string;
}

/**
 * Pure: a login typed into a URL (`rtsp://admin:pw@cam/…`, as camera manuals write them) taken
 * out of it. The URL is stored and pushed without it; the login goes where every camera's does,
 * `username` in the row and the password into the escrow (docs/cameras-central.md
 * "Credentials"). Returns the problem as `field: why` when the login cannot be read or the body
 * also gives one.
 */
export function takeUrlLogin<T extends SnapshotInput & { username?: string | null | undefined; password?: string | undefined }>(
  input: T,
): { input: T; problem?: string } {
  let out = input;
  for (const field of ['snapshot_url', 'rtsp_url'] as const) {
    const text = out[field];
    if (typeof text !== 'string' || !/^[a-z]+:\/\/[^/?#]*@/i.test(text)) continue;
    let url: URL;
    let login: UrlLogin;
    try {
      url = new URL(text);
      login = {
        ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password !== '' ? { password: decodeURIComponent(url.password) } : {}),
      };
    } catch {
      return { input, problem: `${field}: the login in the URL cannot be read; give it as username and password` };
    }
    if (login.username === undefined && login.password === undefined) continue;
    if (out.username !== undefined || out.password !== undefined) {
      return { input, problem: `${field}: give the login in the URL or as username and password, not both` };
    }
    if (login.username === undefined || login.password === undefined) {
      return { input, problem: `${field}: a login in the URL needs both user and password (user:password@host)` };
    }
    if (login.username.length > 100) return { input, problem: `${field}: the user in the URL is longer than 100 characters` };
    if (login.password.length > 200) return { input, problem: `${field}: the password in the URL is longer than 200 characters` };
    url.username = '';
    url.password = '';
    out = { ...out, [field]: url.toString(), username: login.username, password: login.password };
  }
  return { input: out };
}
