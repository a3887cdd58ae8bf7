/**
 * The one rule for every hub URL the appliance may use, whatever its source: the TOML
 * layer, the hub-pushed layer, the setup page, a hub's announced `central_url`
 * (docs/security.md "TLS by default"). Pure. https always; plain http only to a hub on
 * this very machine (127.0.0.0/8, ::1, localhost), where nothing crosses a network.
 * The API key rides in a header of every request, so one plain-http hop gives it away.
 */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export const isLoopbackHostname = (hostname: string): boolean => LOOPBACK.test(hostname);

/** undefined when acceptable; else the sentence a person reads. */
export function hubUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'the hub URL is not a URL (example: https://hub.example.com)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the hub URL must start with https://';
  if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) {
    return `plain http:// to ${url.hostname} is refused: the hub URL must use https:// (the API key only travels over TLS 1.3; http is allowed only to a hub on this machine)`;
  }
  return undefined;
}
