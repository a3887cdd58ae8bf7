/**
 * The words of an alert message (docs/messaging.md), pure: plate,
 * watchlist, time in the user's zone, site and camera, confidence as a percentage, a link to
 * the detection on the dashboard. Plain text (no parse mode): plates and names come from
 * cameras and users, and nothing in them can break the formatting. One alert becomes a
 * photo caption (1,024 characters at most); several become one message (4,096).
 */
import { MAX_PLATE_LENGTH } from '@alpr/shared/detection/limits';
export interface AlertLine {
  alertId: string;
  detectionId: string;
  plate: string;
  watchlistName: string;
  priority: string;
  capturedAt: Date;
  /** 0..1; null when the camera reported none. */
  confidence: number | null;
  siteName: string;
  cameraName: string;
  /** An earlier send of this alert may have arrived (docs/messaging.md "Exactly once"). */
  uncertain: boolean;
  /**
   * The list asks for a person's check before anyone acts, and nobody has confirmed this read
   * yet (docs/alerts.md "Verification"): the message says so first, so a phone's lock screen
   * never shows a bare hit.
   */
  unverified: boolean;
  /** A historical hit (docs/watchlists.md "Retro-hunt"): the read is from before its plate was listed. */
  historical?: boolean;
  /** The list's rule in words, when it has one (docs/watchlists.md "Scopes"). */
  matchedScope?: string | null;
}

const UNVERIFIED = 'UNVERIFIED · ';
const MORE_FOLLOW = ' (more follow)';
const HISTORICAL_NOTE = 'Historical hit: a past read, found when the plate was added to the list; the car may be long gone.';

export const CAPTION_LIMIT = 1024;
export const MESSAGE_LIMIT = 4096;
const REPEAT_NOTE = 'Possibly a repeat: the hub restarted while sending this.';

export function formatTime(at: Date, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(at);
  } catch {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' }).format(at);
  }
}

const percent = (confidence: number | null): string => (confidence === null ? 'confidence not reported' : `confidence ${Math.round(confidence * 100)}%`);
const link = (baseUrl: string, detectionId: string): string => `${baseUrl.replace(/\/+$/, '')}/detections/${detectionId}`;
const cut = (text: string, limit: number): string => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

/** One alert: the caption under its crop (or the text when there is no crop). */
export function singleAlertText(a: AlertLine, timeZone: string, baseUrl: string): string {
  const lines = [
    `🚨 ${a.unverified ? UNVERIFIED : ''}${a.plate} on ${a.watchlistName} (${a.priority})`,
    formatTime(a.capturedAt, timeZone),
    `${a.siteName} · ${a.cameraName}`,
    percent(a.confidence),
    link(baseUrl, a.detectionId),
  ];
  if (a.unverified) lines.push('Not yet verified: compare the crop with the listed plate before acting.');
  if (a.matchedScope) lines.push(`matched: ${cut(a.matchedScope, 300)}`);
  if (a.historical) lines.push(HISTORICAL_NOTE);
  if (a.uncertain) lines.push(REPEAT_NOTE);
  return cut(lines.join('\n'), CAPTION_LIMIT);
}

/**
 * Several alerts for one chat inside the aggregation window: a header, then one block per
 * alert in order while they fit in one message (4,096 characters). `included` says how many
 * did; the worker puts the rest back in the queue for the next message, so no alert is ever
 * reduced to a count.
 */
export function aggregatedText(alerts: readonly AlertLine[], timeZone: string, baseUrl: string): { text: string; included: number } {
  let text = `🚨 ${alerts.length} alerts`;
  let included = 0;
  // Room for the header growing to "(more follow)": added after the blocks are chosen, it must
  // never push the last block's link past the limit.
  const room = MESSAGE_LIMIT - MORE_FOLLOW.length;
  for (const a of alerts) {
    const block = [
      `${cut(a.plate, MAX_PLATE_LENGTH)} on ${cut(a.watchlistName, 60)} (${a.priority})${a.unverified ? ' (unverified)' : ''}${a.historical ? ' (historical)' : ''}${a.uncertain ? ' (possibly a repeat)' : ''}`,
      `${formatTime(a.capturedAt, timeZone)} · ${cut(a.siteName, 60)} · ${cut(a.cameraName, 60)} · ${percent(a.confidence)}`,
      link(baseUrl, a.detectionId),
    ].join('\n');
    if (text.length + 2 + block.length > room && included > 0) break;
    text = `${text}\n\n${block}`;
    included += 1;
  }
  if (included < alerts.length) text = text.replace(/^🚨 \d+ alerts/, `🚨 ${included} alerts${MORE_FOLLOW}`);
  return { text: cut(text, MESSAGE_LIMIT), included };
}
