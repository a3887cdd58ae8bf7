import { isLoopbackHost } from './loopback.ts';

/**
 * How the hub's listener speaks (docs/security.md "TLS by default"). Pure.
 * - `https`: TLS 1.3 only, with the given PEM files or a generated certificate. Always when
 *   the host is not loopback, unless the admin says a TLS proxy stands in front.
 * - `plain_loopback`: HTTP on 127.0.0.0/8, ::1 or localhost with no files (`npm start`, tests,
 *   or a proxy on the same machine): nothing leaves the machine in clear.
 * - `behind_proxy`: HTTP on a non-loopback host, only with HUB_BEHIND_TLS_PROXY=true AND
 *   HUB_TRUSTED_PROXIES set. Without trusted proxies the hub could not tell the proxy from
 *   anybody else on the network talking to it in clear, so the setting is refused.
 */
export type HubTransport = 'https' | 'plain_loopback' | 'behind_proxy';

export function chooseTransport(input: {
  host: string;
  files: boolean;
  behindProxy: boolean;
  trustedProxies: readonly string[];
}): { ok: true; transport: HubTransport } | { ok: false; problem: string } {
  if (input.behindProxy) {
    if (input.files)
      return { ok: false, problem: 'HUB_BEHIND_TLS_PROXY=true and HUB_TLS_CERT_FILE exclude each other: either the proxy or the hub terminates TLS' };
    if (input.trustedProxies.length === 0) {
      return {
        ok: false,
        problem: 'HUB_BEHIND_TLS_PROXY=true needs HUB_TRUSTED_PROXIES (the address of the TLS proxy): without it the hub would serve plain HTTP to anyone',
      };
    }
    return { ok: true, transport: 'behind_proxy' };
  }
  if (input.files) return { ok: true, transport: 'https' };
  return { ok: true, transport: isLoopbackHost(input.host) ? 'plain_loopback' : 'https' };
}
