/// <reference lib="dom" />
import { adminCollectorPartPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
import { reveal, withFreshFactor } from './fresh-factor.ts';
import { claimCodeCertificateNote } from './hub-certificate.ts';
// The wire shape, written once by the server's presenter (type-only: erased from the bundle).
import type { presentCollector } from '../../admin/present.ts';

/*
 * Suspend / resume a site and replace its box (docs/collectors.md "Suspend and resume",
 * "Replacing a box") on a collector's view. A replacement hands out a claim code that binds
 * new hardware and ends the old box's keys: a key operation, so it goes through the fresh
 * second factor (fresh-factor.ts) and the code is shown once.
 */
type Collector = ReturnType<typeof presentCollector>;

/** Which actions the collector's state allows, and what it is in words. */
export function showState(c: Collector): void {
  const claimed = c.status === 'active' || c.status === 'disabled';
  show(byId('site-state'), claimed);
  if (!claimed) return;
  const suspended = c.status === 'disabled';
  const line = byId('state-line');
  line.textContent = suspended
    ? `Suspended since ${when(c.suspended_at)}${c.suspend_reason ? ` (${c.suspend_reason})` : ''}: the hub refuses its uploads; the box keeps its readings and sends them when resumed.`
    : 'Uploads are accepted.';
  line.dataset['state'] = suspended ? 'down' : 'live';
  show(byId('suspend-form'), !suspended);
  show(byId('resume'), suspended);
  const pending = byId('replace-pending');
  pending.textContent = c.pending_replacement
    ? `A replacement is pending: its claim code works until ${when(c.claim_code_expires_at)}. The old box keeps working until the new box is claimed.`
    : '';
  show(pending, c.pending_replacement);
  byId('replace').textContent = c.pending_replacement ? 'New claim code' : 'Replace this box';
  show(byId('replace-cancel'), c.pending_replacement);
}

/** Wires the buttons once; `current` is the collector on view, `changed` reloads its view. */
export function bindStateActions(current: () => Collector | undefined, changed: (c: Collector) => Promise<void>): void {
  byId<HTMLFormElement>('suspend-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const c = current();
    if (!c) return;
    const reason = byId<HTMLInputElement>('suspend-reason').value.trim();
    api('POST', adminCollectorPartPath(c.id, 'suspend'), reason ? { reason } : {})
      .then(async () => {
        byId<HTMLInputElement>('suspend-reason').value = '';
        say(`${c.site_name} suspended: its uploads are refused until you resume; the box keeps its readings.`, 'info');
        await changed(c);
      })
      .catch(failed);
  });
  byId('resume').addEventListener('click', () => {
    const c = current();
    if (!c) return;
    api<{ suspended_seconds: number }>('POST', adminCollectorPartPath(c.id, 'resume'), {})
      .then(async () => {
        say(`${c.site_name} resumed: the box sends what it kept while suspended.`, 'info');
        await changed(c);
      })
      .catch(failed);
  });
  byId('replace').addEventListener('click', () => {
    const c = current();
    if (!c) return;
    void withFreshFactor(async () => {
      const issued = await api<{ claim_code: string; claim_code_expires_at: string; hub_certificate_sha256: string | null }>(
        'POST',
        adminCollectorPartPath(c.id, 'replace'),
        {},
      );
      reveal(
        `Claim code for the new box at ${c.site_name}`,
        `Enter it on the new box's setup page (port 8080) before ${when(issued.claim_code_expires_at)}. The old box keeps working until then; once the new box is claimed, the old box is cut off (its keys are refused). The code is shown only now.${claimCodeCertificateNote(issued.hub_certificate_sha256)}`,
        issued.claim_code,
      );
      await changed(c);
    });
  });
  byId('replace-cancel').addEventListener('click', () => {
    const c = current();
    if (!c) return;
    api('POST', adminCollectorPartPath(c.id, 'replace/cancel'), {})
      .then(async () => {
        say(`Replacement of ${c.site_name}'s box cancelled: the claim code no longer works and the current box stays.`, 'info');
        await changed(c);
      })
      .catch(failed);
  });
}
