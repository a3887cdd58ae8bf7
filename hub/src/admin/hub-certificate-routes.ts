import { ADMIN_HUB_CERTIFICATE_ANNOUNCE_PATH, ADMIN_HUB_CERTIFICATE_PATH } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import { sha256FingerprintSchema } from '@alpr/shared/protocol/certificate-pin';
import type { PlatformDeps } from '../platform/deps.ts';
import { validJson } from '../platform/http/validator.ts';
import { announceHubCertificate, hubCertificateState } from '../tls/hub-certificate.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';

/** 64 hex digits, colons, spaces and case as people copy them; normalised to `AB:CD:…` (the appliance's form). */
const announceBodySchema = z.object({ sha256: sha256FingerprintSchema }).strict();

/**
 * The hub certificate appliances pin (docs/security.md "Certificate pinning", "Rotating the
 * hub certificate"): read it, and announce the next one to every running collector. The
 * announcement decides which certificate appliances will trust, so it needs a fresh second
 * factor like the key operations.
 */
export function adminHubCertificateRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.get(ADMIN_HUB_CERTIFICATE_PATH, guards.read, audited(deps, 'admin.hub_certificate.read'), async (c) => {
    const state = await hubCertificateState(deps);
    return c.json({ sha256: state.sha256, serves_tls: state.servesTls, transport: state.transport, next_sha256: state.nextSha256 });
  });

  app.post(
    ADMIN_HUB_CERTIFICATE_ANNOUNCE_PATH,
    guards.keyPost,
    audited(deps, 'admin.hub_certificate.announce'),
    ...validJson(announceBodySchema),
    async (c) => {
      const done = await announceHubCertificate(deps, { userId: c.get('user').id }, c.req.valid('json').sha256);
      noteAudit(c, { detail: { sha256: done.sha256, queued: done.queued.length } });
      // 202: queued; each collector takes it with its next heartbeat and acknowledges it.
      return c.json({ sha256: done.sha256, queued: done.queued.length }, 202);
    },
  );

  return app;
}
