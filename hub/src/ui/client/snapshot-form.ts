import { PLATE_REGIONS } from '@alpr/shared/detection/plate-regions';

/*
 * The ordinary-camera part of the camera form (vendor `snapshot`, docs/ordinary-cameras.md),
 * without the DOM: what is wrong with what was typed, and the body fields. The bounds are the
 * hub's (collectors/cameras/snapshot-input.ts), written again here so the form's bundle does not
 * carry zod; the hub still decides, and its 400 message is shown when it disagrees.
 */
export type SnapshotField = 'snapshot_url' | 'rtsp_url' | 'frames_per_second' | 'region' | 'change_threshold' | 'passage_gap_ms';
export const SNAPSHOT_FIELDS: readonly SnapshotField[] = ['snapshot_url', 'rtsp_url', 'frames_per_second', 'region', 'change_threshold', 'passage_gap_ms'];

export type SnapshotValues = Record<SnapshotField, string>;

const URL_CHARS = /^[^\s\u0000-\u001f\u007f-\u009f]+$/;
// A login in a URL would sit in a plain text field on screen: the Username and Password fields take it.
const LOGIN_IN_URL = /^[a-z]+:\/\/[^/?#]*@/i;
const SECRET_QUERY = /[?&][^=&#]*(pass|pwd|token|secret|key)[^=&#]*=/i;

function hostOf(url: string): string | undefined {
  // `http:///x`: a URL parser reads `x` as the host.
  if (!/^[a-z]+:\/\/[^/]/i.test(url)) return undefined;
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

function urlProblem(text: string, scheme: RegExp, what: string): string | undefined {
  if (text === '') return undefined;
  if (text.length > 2000) return 'At most 2000 characters.';
  if (!scheme.test(text)) return what;
  if (!URL_CHARS.test(text)) return 'No spaces or control characters.';
  if (LOGIN_IN_URL.test(text)) return 'Put the login in Username and Password below, not in the URL.';
  if (SECRET_QUERY.test(text)) return 'No password in the URL: use Username and Password below.';
  if (!text.startsWith('/') && hostOf(text) === undefined) return 'Not a URL with a host.';
  return undefined;
}

function numberProblem(text: string, min: number, max: number, whole: boolean, words: string): string | undefined {
  if (text === '') return undefined;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || (whole && !Number.isInteger(value)) || value < min || value > max) return words;
  return undefined;
}

/** True when the typed URLs carry the camera's address themselves, so no host is needed. */
export const hasOwnUrl = (v: SnapshotValues): boolean => v.rtsp_url.trim() !== '' || v.snapshot_url.trim().includes('://');

/** Pure: the problems of the ordinary-camera fields, in words for the person typing. */
export function snapshotProblems(v: SnapshotValues): Partial<Record<SnapshotField, string>> {
  const problems: Partial<Record<SnapshotField, string>> = {};
  const snapshot = v.snapshot_url.trim();
  const rtsp = v.rtsp_url.trim();
  const snapshotWrong = urlProblem(snapshot, /^(https?:\/\/|\/)/, 'An http:// or https:// URL, or a path on the address starting with /.');
  if (snapshotWrong) problems.snapshot_url = snapshotWrong;
  const rtspWrong = urlProblem(rtsp, /^rtsps?:\/\//, 'An rtsp:// or rtsps:// URL.');
  if (rtspWrong) problems.rtsp_url = rtspWrong;
  else if (snapshot !== '' && rtsp !== '') problems.rtsp_url = 'Give a snapshot URL or an RTSP URL, not both.';
  const fps = numberProblem(v.frames_per_second.trim(), 0.2, 10, false, 'From 0.2 to 10 frames a second (blank: 4).');
  if (fps) problems.frames_per_second = fps;
  const region = v.region.trim();
  if (region !== '' && !(PLATE_REGIONS as readonly string[]).includes(region)) problems.region = `One of ${PLATE_REGIONS.join(', ')} (blank: any plate shape).`;
  const threshold = numberProblem(v.change_threshold.trim(), 0, 255, false, 'From 0 to 255 (blank: 4).');
  if (threshold) problems.change_threshold = threshold;
  const gap = numberProblem(v.passage_gap_ms.trim(), 200, 60_000, true, 'A whole number of milliseconds from 200 to 60000 (blank: 3000).');
  if (gap) problems.passage_gap_ms = gap;
  return problems;
}

/** Pure: the body fields as typed; null for a blank one (the device's default). */
export function snapshotBody(v: SnapshotValues): Record<SnapshotField, string | number | null> {
  const text = (s: string): string | null => s.trim() || null;
  const num = (s: string): number | null => (s.trim() === '' ? null : Number(s.trim()));
  return {
    snapshot_url: text(v.snapshot_url),
    rtsp_url: text(v.rtsp_url),
    frames_per_second: num(v.frames_per_second),
    region: text(v.region),
    change_threshold: num(v.change_threshold),
    passage_gap_ms: num(v.passage_gap_ms),
  };
}

/** Where the frames come from, for "the device changed: enter the password again" (as the hub's snapshotTarget: host names, as a set). */
export function snapshotTarget(host: string, snapshotUrl: string, rtspUrl: string): string {
  const of = (url: string): string => {
    if (url === '' || url.startsWith('/')) return '';
    try {
      return new URL(url).hostname;
    } catch {
      return url;
    }
  };
  return [...new Set([host, of(snapshotUrl), of(rtspUrl)].filter((h) => h !== ''))].sort().join(' ');
}
