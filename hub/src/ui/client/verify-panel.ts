/// <reference lib="dom" />
import { alertActionPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { confidenceWords, reportedConfidence } from '@alpr/shared/detection/confidence';
import { imagePath } from './images.ts';
import { describeDiff, plateDiff } from '../../alerts/plate-diff.ts';
// Wire shapes, type-only (erased from the bundle).
import type { AlertRecord, AlertVerificationRecord } from '../../alerts/payload.ts';

/*
 * The verification view of the live page (docs/alerts.md "Verification"): the read beside
 * the list entry with the differing characters marked, and the operator's verdict. The
 * verdict goes to POST /api/v1/alerts/{id}/verify; every open page (this one included)
 * learns it from the live channel's `alert_verification`.
 */

const MATCH_WORDS: Record<AlertRecord['match_kind'], string> = {
  exact: 'exact (same characters as the OCR reads them)',
  ocr: 'OCR-tolerant (one look-alike character)',
  one_edit: 'one misread forgiven (one character added, missing or changed)',
  not_listed: 'not on the allow-list',
};

/** A plate with its differing characters in <mark>, and the same said in words for screen readers. */
function markedPlate(chars: Array<{ char: string; differs: boolean }>): DocumentFragment {
  const out = document.createDocumentFragment();
  for (const c of chars) out.append(c.differs ? el('mark', {}, c.char) : c.char);
  return out;
}

/** How an alert's verification reads in a list or the banner. */
export function verificationLabel(v: AlertVerificationRecord | undefined): { text: string; className: string } {
  if (!v) return { text: '', className: '' };
  if (v.state === 'confirmed') return { text: 'confirmed', className: 'ok' };
  if (v.state === 'misread') return { text: 'misread', className: 'bad' };
  return v.required ? { text: 'unverified', className: 'bad' } : { text: 'verification not required', className: 'muted' };
}

let shown: AlertRecord | undefined;
const panel = byId('verify');

function fill(a: AlertRecord): void {
  const listed = a.entry.plate_number ?? '';
  const diff = plateDiff(a.plate_number, listed);
  byId('verify-read').replaceChildren(markedPlate(diff.read));
  byId('verify-listed').replaceChildren(markedPlate(diff.listed));
  const crop = byId<HTMLImageElement>('verify-crop');
  const scene = byId<HTMLImageElement>('verify-scene');
  for (const [img, url, alt] of [
    [crop, a.detection.image_urls.crop, `Plate crop of the read ${a.plate_number}`],
    [scene, a.detection.image_urls.full, `Scene of the read ${a.plate_number}`],
  ] as const) {
    const path = imagePath(url);
    if (path) img.src = path;
    img.alt = alt;
    show(img, Boolean(path));
  }
  byId('verify-confidence').textContent = confidenceWords(a.detection.confidence);
  byId('verify-where').textContent = `${a.detection.collector_name}, ${a.detection.camera_name} · ${when(a.detection.captured_at)}`;
  byId('verify-candidates').textContent =
    a.detection.candidates.length === 0
      ? 'none sent by this camera'
      : a.detection.candidates.map((c) => (reportedConfidence(c.confidence) === null ? c.text : `${c.text} (${confidenceWords(c.confidence)})`)).join(', ');
  byId('verify-list').textContent = `${a.watchlist.name} (${a.watchlist.priority})`;
  const how = a.match_kind === 'not_listed' ? 'no entry holds this plate' : listed ? describeDiff(a.plate_number, listed) : 'entry since removed';
  byId('verify-match').textContent = `${MATCH_WORDS[a.match_kind]}: ${how}${a.matched_scope ? ` (matched: ${a.matched_scope})` : ''}`;
  byId('verify-notes').textContent = a.entry.notes ?? '—';
  byId('verify-added').textContent = `${a.entry.added_by_email ?? a.entry.added_by ?? 'unknown'} · ${when(a.entry.added_at)}`;
  showVerification(a.verification);
}

function showVerification(v: AlertVerificationRecord): void {
  const label = verificationLabel(v);
  const state = byId('verify-state');
  state.className = label.className;
  state.textContent =
    v.state === 'unverified' ? label.text : `${label.text} by ${v.by_email ?? v.by ?? 'someone'}, ${when(v.at)}${v.note ? `: ${v.note}` : ''}`;
  const decided = v.state !== 'unverified';
  for (const id of ['verify-confirm', 'verify-misread', 'verify-note']) (byId(id) as HTMLButtonElement | HTMLTextAreaElement).disabled = decided;
}

export function openVerification(a: AlertRecord): void {
  shown = a;
  fill(a);
  show(panel, true);
  byId('verify-title').focus();
}

/** A verdict arrived over the live channel: update the open view when it is about that alert. */
export function verificationChanged(alertId: string, v: AlertVerificationRecord): void {
  if (!shown || shown.alert_id !== alertId) return;
  shown = { ...shown, verification: v };
  showVerification(v);
}

byId<HTMLFormElement>('verify-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const verdict = ((event as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
  if (!shown || (verdict !== 'confirmed' && verdict !== 'misread')) return;
  const note = byId<HTMLTextAreaElement>('verify-note').value.trim();
  if (verdict === 'misread' && note === '') {
    say('Say what the crop shows: a misread needs a note.');
    byId('verify-note').focus();
    return;
  }
  const id = shown.alert_id;
  void api<{ verification: 'confirmed' | 'misread' }>('POST', alertActionPath(id, 'verify'), { verification: verdict, ...(note ? { note } : {}) })
    .then(() => {
      byId<HTMLTextAreaElement>('verify-note').value = '';
      say(verdict === 'confirmed' ? 'Alert confirmed.' : 'Alert marked misread.', 'info');
    })
    .catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not record the verification.'));
});
byId('verify-close').addEventListener('click', () => show(panel, false));
