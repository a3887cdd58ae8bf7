import { normalizeSha256Fingerprint } from '@alpr/shared/protocol/certificate-pin';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { announceHubCertificate, hubCertificateState } from '../tls/hub-certificate.ts';
import { one, UsageError, type Action } from './arguments.ts';

export const HUB_CERTIFICATE_USAGE = `  hub-certificate show                                   the SHA-256 appliances pin, and the one announced next
  hub-certificate announce <sha256>                      queue trust_hub_certificate for every claimed collector (rotation step 2)`;

/**
 * `hub-certificate show|announce` (docs/security.md "Rotating the hub certificate"). The
 * served fingerprint comes from the certificate file (main.ts reads it, tls/served.ts), so
 * the CLI shows what the hub serves without loading its key.
 */
export function planHubCertificateCommand(positionals: readonly string[]): Action {
  const verb = positionals[1];
  if (verb === 'show') {
    one(positionals, 1, 'verb');
    return async (ctx, out) => {
      const state = await hubCertificateState(ctx);
      out.record({
        sha256: state.sha256,
        serves_tls: state.servesTls,
        transport: state.transport,
        next_sha256: state.nextSha256,
        note: state.servesTls
          ? "the installer types sha256 on the appliance's setup page"
          : 'the hub serves no TLS itself: appliances check the certificate of whatever terminates TLS in front of it',
      });
      return 0;
    };
  }
  if (verb === 'announce') {
    const typed = one(positionals, 2, 'SHA-256 fingerprint');
    const sha256 = normalizeSha256Fingerprint(typed);
    if (sha256 === undefined) throw new UsageError('not a SHA-256 fingerprint (64 hex digits, colons optional)');
    return async (ctx, out) => {
      const done = await announceHubCertificate(ctx, SYSTEM_ACTOR, sha256);
      out.record({
        sha256: done.sha256,
        queued: done.queued.length,
        note: "delivered with each collector's next heartbeat; install the new certificate once every one has acknowledged it",
      });
      return 0;
    };
  }
  throw new UsageError(verb === undefined ? 'missing verb: hub-certificate show|announce' : `unknown command: hub-certificate ${verb}`);
}
