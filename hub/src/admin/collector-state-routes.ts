import { adminCollectorPartRoute } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformDeps } from '../platform/deps.ts';
import { cancelReplacement, markForReplacement } from '../collectors/replace.ts';
import { resumeCollector, suspendCollector } from '../collectors/suspend.ts';
import { idParam, validJson } from '../platform/http/validator.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { hubCertificateSha256 } from './present.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';

const suspendBodySchema = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();

/**
 * A site suspended and resumed (status `disabled`), and a dead box replaced under the same
 * collector (docs/collectors.md "Suspend and resume", "Replacing a box"). A replacement hands
 * out a claim code that binds new hardware and ends the old box's keys: a key operation, so it
 * needs a fresh second factor like rotation.
 */
export function adminCollectorStateRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const actor = (c: { get(key: 'user'): { id: string } }) => ({ userId: c.get('user').id });

  app.post(adminCollectorPartRoute('suspend'), guards.post, audited(deps, 'admin.collector.suspend'), idParam, ...validJson(suspendBodySchema), async (c) => {
    const { id } = c.req.valid('param');
    const { reason } = c.req.valid('json');
    const done = await suspendCollector(deps, actor(c), id, reason);
    noteAudit(c, { detail: { reason: reason ?? null } });
    return c.json({ collector_id: id, status: 'disabled', suspended_at: done.suspendedAt.toISOString() });
  });

  app.post(adminCollectorPartRoute('resume'), guards.post, audited(deps, 'admin.collector.resume'), idParam, ...validJson(emptyBodySchema), async (c) => {
    const { id } = c.req.valid('param');
    const done = await resumeCollector(deps, actor(c), id);
    noteAudit(c, { detail: { suspended_seconds: done.suspendedSeconds } });
    return c.json({ collector_id: id, status: 'active', suspended_seconds: done.suspendedSeconds });
  });

  app.post(adminCollectorPartRoute('replace'), guards.keyPost, audited(deps, 'admin.collector.replace'), idParam, ...validJson(emptyBodySchema), async (c) => {
    const issued = await markForReplacement(deps, actor(c), c.req.valid('param').id);
    c.header('Cache-Control', 'no-store');
    noteAudit(c, { detail: { claim_code_expires_at: issued.claimCodeExpiresAt.toISOString() } });
    return c.json(
      {
        collector_id: issued.collectorId,
        pending_replacement: true,
        claim_code: issued.claimCode,
        claim_code_expires_at: issued.claimCodeExpiresAt.toISOString(),
        hub_certificate_sha256: hubCertificateSha256(deps),
      },
      201,
    );
  });

  app.post(
    adminCollectorPartRoute('replace/cancel'),
    guards.post,
    audited(deps, 'admin.collector.replace_cancel'),
    idParam,
    ...validJson(emptyBodySchema),
    async (c) => {
      const { id } = c.req.valid('param');
      await cancelReplacement(deps, actor(c), id);
      return c.json({ collector_id: id, pending_replacement: false });
    },
  );

  return app;
}
