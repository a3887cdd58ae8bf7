import { hubUrlProblem } from '../config/hub-url-rule.ts';

/**
 * The hub URL typed on the setup page. Pure. The same rule as every other source of a hub
 * URL (config/hub-url-rule.ts, docs/security.md "TLS by default"): https, or http to a hub
 * on this very machine. No user info, query or fragment: the enrollment paths are appended.
 */
export type HubUrlCheck = { ok: true; url: string } | { ok: false; message: string };

export function checkHubUrl(raw: string): HubUrlCheck {
  const text = raw.trim();
  const problem = hubUrlProblem(text);
  if (problem) return { ok: false, message: `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.` };
  const url = new URL(text);
  if (url.username || url.password || url.search || url.hash) return { ok: false, message: 'The hub URL must not contain a user, a query or a fragment.' };
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
