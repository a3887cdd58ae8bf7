/// <reference lib="dom" />
import { ADMIN_HUB_CERTIFICATE_PATH } from '../../platform/http/paths.ts';
import { api } from './api.ts';

/*
 * The hub certificate beside the claim codes (docs/security.md "Certificate pinning"): the
 * installer types its SHA-256 on the appliance's setup page, which refuses to claim a hub
 * whose certificate it cannot confirm. Words are pure (table-tested); the filler fetches
 * `GET /api/v1/admin/hub-certificate` and writes every `[data-hub-certificate]` element.
 */

/** The answer of GET /api/v1/admin/hub-certificate (admin/hub-certificate-routes.ts). */
export interface HubCertificateAnswer {
  sha256: string | null;
  serves_tls: boolean;
  transport: 'https' | 'plain_loopback' | 'behind_proxy';
  next_sha256: string | null;
}

/** The line shown on the collectors page and beside a replacement's claim code. */
export function hubCertificateWords(a: HubCertificateAnswer): string {
  if (a.serves_tls && a.sha256) {
    const next = a.next_sha256 ? ` Announced next (rotation under way): ${a.next_sha256}.` : '';
    return `Hub certificate SHA-256: ${a.sha256}. The installer types it on the appliance's setup page (Hub certificate fingerprint) with the claim code; the box refuses a hub that shows another.${next}`;
  }
  if (a.transport === 'behind_proxy') {
    return "TLS is terminated by a proxy in front of the hub: the hub does not know that certificate. If it is not publicly trusted, the installer confirms the proxy certificate's SHA-256 on the appliance's setup page.";
  }
  return 'The hub serves plain HTTP on this machine only (loopback): there is no hub certificate to confirm. Appliances on other machines cannot claim it until it serves TLS (HUB_HOST, docs/security.md).';
}

/** Appended to a claim code's help: the fingerprint that goes with it, when the hub has one. */
export function claimCodeCertificateNote(sha256: string | null | undefined): string {
  return sha256 ? ` With it, type the hub certificate SHA-256 ${sha256} under "Hub certificate fingerprint".` : '';
}

/** Fills every `[data-hub-certificate]` element; a failure leaves them blank (the page still works). */
export async function showHubCertificate(): Promise<void> {
  const answer = await api<HubCertificateAnswer>('GET', ADMIN_HUB_CERTIFICATE_PATH);
  for (const node of document.querySelectorAll<HTMLElement>('[data-hub-certificate]')) {
    node.textContent = hubCertificateWords(answer);
    node.dataset['servesTls'] = String(answer.serves_tls);
  }
}
