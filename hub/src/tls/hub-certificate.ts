import { desc, eq, inArray } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { queueCommand } from '../collectors/commands.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from '../collectors/context.ts';
import { collectors } from '../db/schema/collectors.ts';
import { commands } from '../db/schema/commands.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import type { HubTransport } from '../platform/config/transport.ts';

/**
 * The hub certificate as the admin and the installer see it (docs/security.md "Certificate
 * pinning", "Rotating the hub certificate"): the SHA-256 appliances pin at claim, and the
 * one announced for the next switch.
 */
export interface HubCertificateState {
  /** Upper-case colon-separated SHA-256 of the certificate served; null when the hub serves no TLS itself. */
  sha256: string | null;
  servesTls: boolean;
  transport: HubTransport;
  /** The newest announced certificate while it is not yet the one served; null otherwise. */
  nextSha256: string | null;
}

export type HubCertificateContext = Pick<CollectorContext, 'db' | 'config'>;

/** Collectors that heartbeat and so can take a command: claimed (`active`) or suspended (`disabled`). */
const RUNNING = ['active', 'disabled'] as const;

export async function hubCertificateState(ctx: HubCertificateContext): Promise<HubCertificateState> {
  const sha256 = ctx.config.certificateSha256 ?? null;
  const announced = await newestAnnouncement(ctx.db);
  return {
    sha256,
    servesTls: ctx.config.transport === 'https' && sha256 !== null,
    transport: ctx.config.transport,
    nextSha256: announced !== null && announced !== sha256 ? announced : null,
  };
}

/** The newest trust_hub_certificate payload: one row, the commands index covers collector + time only, fine for a few thousand rows. */
async function newestAnnouncement(db: DbSession): Promise<string | null> {
  const [row] = await db.db
    .select({ payload: commands.payload })
    .from(commands)
    .where(eq(commands.type, 'trust_hub_certificate'))
    .orderBy(desc(commands.createdAt), desc(commands.id))
    .limit(1);
  const sha = row?.payload['sha256'];
  return typeof sha === 'string' ? sha : null;
}

export interface Announcement {
  sha256: string;
  /** One signed command per collector, in the order queued. */
  queued: { collectorId: string; commandId: string }[];
}

/**
 * Step 2 of the rotation: a signed `trust_hub_certificate { sha256 }` for every collector
 * that is claimed and not decommissioned (active or suspended: both heartbeat), in one
 * transaction, so an admin never sees half the fleet announced. Pending collectors get
 * nothing: they pin at claim whatever the hub then serves. `sha256` is already normalised
 * (shared/src/protocol/certificate-pin.ts). Announcing the certificate the hub serves now
 * is refused: it is almost always the old fingerprint pasted by mistake, and it would make
 * the collectors' commands list claim a rotation that is not happening.
 */
export async function announceHubCertificate(ctx: CollectorContext, actor: Actor, sha256: string): Promise<Announcement> {
  if (ctx.config.certificateSha256 === sha256) {
    throw new HubError('conflict', `SHA-256 ${sha256} is the certificate the hub serves now: announce the new certificate's fingerprint`);
  }
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const targets = await tx.db
      .select({ id: collectors.id })
      .from(collectors)
      .where(inArray(collectors.status, [...RUNNING]))
      .orderBy(collectors.createdAt, collectors.id)
      // Locked: a collector decommissioned while this runs is re-checked and skipped, not announced to.
      .for('update');
    const queued: Announcement['queued'] = [];
    for (const target of targets) {
      const command = await queueCommand(tx, {
        collectorId: target.id,
        type: 'trust_hub_certificate',
        payload: { sha256 },
        now,
        createdBy: actor.userId,
      });
      queued.push({ collectorId: target.id, commandId: command.id });
    }
    await writeAudit(tx, {
      at: now,
      action: 'hub.certificate_announced',
      actor: { userId: actor.userId },
      detail: { sha256, queued: queued.length, served_sha256: ctx.config.certificateSha256 ?? null },
    });
    return { sha256, queued };
  });
}
