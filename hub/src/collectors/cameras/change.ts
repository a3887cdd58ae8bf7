import { and, eq, isNull } from 'drizzle-orm';
import { cameras } from '../../db/schema/cameras.ts';
import type { DbSession } from '../../db/session.ts';
import { HubError } from '../../platform/errors.ts';
import { writeAudit } from '../../platform/audit-writer.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { Actor } from '../../platform/actor.ts';
import type { CollectorContext } from '../context.ts';
import { lockCollector, type CollectorRow } from '../find-collector.ts';
import { isUniqueViolation } from '../../db/sql-errors.ts';
import { pushConfig } from '../push-config.ts';
import { escrowCredentials, openEscrow, type CameraSecrets } from './credential-escrow.ts';
import { defaultPort, shapeProblems, type AddCameraBody, type EditCameraBody } from './input.ts';
import type { CameraRow } from './render.ts';
import { snapshotSettingsAfter, snapshotTarget, takeUrlLogin } from './snapshot-input.ts';

/**
 * Cameras managed on the hub (docs/cameras-central.md). Each change is one transaction: the
 * camera row, `config_version` + 1 and a signed `config_update` for the collector
 * (collectors/push-config.ts), and the audit row. The collector answers per camera in its
 * acknowledgment (collectors/ack-command.ts), shown on the collector page.
 */
export interface CameraChange {
  camera: CameraRow;
  configVersion: number;
  commandId: string | null;
}

type Tx = DbSession;

async function changeOf(
  ctx: CollectorContext,
  collectorId: string,
  work: (tx: Tx, collector: CollectorRow, now: Date) => Promise<{ camera: CameraRow; audit: { action: string; detail: Record<string, unknown> } }>,
  actor: Actor,
): Promise<CameraChange> {
  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction(async (tx) => {
      const collector = await lockCollector(tx, collectorId);
      if (collector.status === 'decommissioned') throw new HubError('conflict', 'collector is decommissioned');
      const { camera, audit } = await work(tx, collector, now);
      const pushed = await pushConfig(tx, ctx.config, collector, { actor, now });
      await writeAudit(tx, {
        at: now,
        action: audit.action,
        actor: { userId: actor.userId },
        targetType: 'camera',
        targetId: camera.id,
        detail: { collector_id: collector.id, ...audit.detail, config_version: pushed.configVersion, command_id: pushed.commandId },
      });
      return { camera, ...pushed };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new HubError('conflict', 'this collector already has a camera with that name (or that MAC)');
    throw err;
  }
}

function refuseShape(problems: string[]): void {
  if (problems.length > 0) throw new HubError('bad_request', `invalid request body: ${problems[0]}`);
}

/** A login typed into an ordinary camera's URL, moved to `username` and `password` (snapshot-input.ts). */
function withUrlLogin<T extends AddCameraBody | EditCameraBody>(body: T): T {
  const taken = takeUrlLogin(body);
  if (taken.problem !== undefined) refuseShape([taken.problem]);
  return taken.input;
}

const secretsOf = (input: { username?: string | undefined; password?: string | undefined; token?: string | undefined }): CameraSecrets => ({
  ...(input.username !== undefined ? { username: input.username } : {}),
  ...(input.password !== undefined ? { password: input.password } : {}),
  ...(input.token !== undefined ? { token: input.token } : {}),
});

export function addCamera(ctx: CollectorContext, actor: Actor, collectorId: string, body: AddCameraBody): Promise<CameraChange> {
  const input = withUrlLogin(body);
  const snapshot = snapshotSettingsAfter(null, input);
  refuseShape(
    shapeProblems({
      vendor: input.vendor,
      mode: input.mode,
      host: input.host ?? null,
      username: input.username ?? null,
      hasPassword: input.password !== undefined,
      hasToken: input.token !== undefined,
      latitude: input.gps_latitude ?? null,
      longitude: input.gps_longitude ?? null,
      snapshot,
    }),
  );
  const secrets = secretsOf(input);
  return changeOf(
    ctx,
    collectorId,
    async (tx, collector, now) => {
      const [camera] = await tx.db
        .insert(cameras)
        .values({
          collectorId: collector.id,
          vendor: input.vendor,
          mode: input.mode,
          host: input.host ?? '',
          port: input.port ?? defaultPort(input.vendor, input.tls ?? null),
          name: input.name,
          username: input.username ?? null,
          escrowedCredentials: input.password !== undefined || input.token !== undefined ? escrowCredentials(ctx.config, secrets) : null,
          timezone: input.timezone ?? 'UTC',
          channel: input.channel ?? 1,
          tls: input.tls ?? null,
          sourceCameraIds: input.camera_ids ?? null,
          direction: input.direction ?? null,
          gpsLatitude: input.gps_latitude?.toFixed(8) ?? null,
          gpsLongitude: input.gps_longitude?.toFixed(8) ?? null,
          enabled: input.enabled ?? true,
          snapshotSettings: snapshot,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!camera) throw new Error('camera insert returned nothing');
      return {
        camera,
        audit: {
          action: 'camera.added',
          detail: { name: input.name, vendor: input.vendor, mode: input.mode, has_credentials: camera.escrowedCredentials !== null },
        },
      };
    },
    actor,
  );
}

async function lockCamera(tx: Tx, collectorId: string, cameraId: string): Promise<CameraRow> {
  if (!isUuid(cameraId)) throw new HubError('not_found', 'no such camera');
  const [row] = await tx.db
    .select()
    .from(cameras)
    .where(and(eq(cameras.id, cameraId), eq(cameras.collectorId, collectorId), isNull(cameras.removedAt)))
    .for('update');
  if (!row) throw new HubError('not_found', 'no such camera');
  return row;
}

/**
 * An edit changes what it names. Credentials are write-only: an edit that changes the
 * username, the host (for an ordinary camera, a host in its URLs too) or the vendor must give
 * the password (or token) again, because the stored one was for the old account or device.
 * `username: null` removes the login (username, password and token): a camera whose login
 * was turned off, or one added with a login it never needed. A kind that needs a login then
 * answers 400, as on an add without one.
 */
export function editCamera(ctx: CollectorContext, actor: Actor, collectorId: string, cameraId: string, body: EditCameraBody): Promise<CameraChange> {
  const input = withUrlLogin(body);
  return changeOf(
    ctx,
    collectorId,
    async (tx, collector) => {
      const before = await lockCamera(tx, collector.id, cameraId);
      const vendor = input.vendor ?? before.vendor;
      const host = input.host === undefined ? before.host : (input.host ?? '');
      const loginRemoved = input.username === null;
      const newSecret = input.password !== undefined || input.token !== undefined;
      if (loginRemoved && newSecret) {
        throw new HubError('bad_request', 'invalid request body: username: null removes the login; give no password or token with it');
      }
      const username = loginRemoved ? null : (input.username ?? before.username);
      // An ordinary camera's settings go with the kind: another kind keeps none.
      const snapshot = snapshotSettingsAfter(vendor === before.vendor ? before.snapshotSettings : null, input);
      // For an ordinary camera the device is also where its URLs point.
      const identityChanged =
        (typeof input.username === 'string' && input.username !== before.username) ||
        snapshotTarget(host, snapshot) !== snapshotTarget(before.host, before.snapshotSettings) ||
        vendor !== before.vendor;
      if (identityChanged && !newSecret && before.escrowedCredentials !== null) {
        throw new HubError(
          'bad_request',
          `invalid request body: ${vendor === 'vendor_b' ? 'token' : 'password'}: enter the credentials again when the username, host or vendor changes`,
        );
      }
      const kept = before.escrowedCredentials && !newSecret && !loginRemoved ? openEscrow(ctx.config, before.escrowedCredentials) : {};
      const secrets: CameraSecrets = newSecret ? secretsOf({ ...input, username: username ?? undefined }) : kept;
      const latitude = input.gps_latitude === undefined ? before.gpsLatitude : input.gps_latitude === null ? null : input.gps_latitude.toFixed(8);
      const longitude = input.gps_longitude === undefined ? before.gpsLongitude : input.gps_longitude === null ? null : input.gps_longitude.toFixed(8);
      const mode = input.mode ?? before.mode;
      refuseShape(
        shapeProblems({
          vendor,
          mode,
          host: host || null,
          username,
          hasPassword: secrets.password !== undefined,
          hasToken: secrets.token !== undefined,
          latitude: latitude === null ? null : Number(latitude),
          longitude: longitude === null ? null : Number(longitude),
          snapshot,
        }),
      );
      const tls = input.tls === undefined ? before.tls : input.tls;
      const [camera] = await tx.db
        .update(cameras)
        .set({
          name: input.name ?? before.name,
          vendor,
          mode,
          host,
          port: input.port === undefined ? before.port : (input.port ?? defaultPort(vendor, tls)),
          username,
          ...(newSecret ? { escrowedCredentials: escrowCredentials(ctx.config, secrets) } : loginRemoved ? { escrowedCredentials: null } : {}),
          timezone: input.timezone ?? before.timezone,
          channel: input.channel ?? before.channel,
          tls,
          sourceCameraIds: input.camera_ids === undefined ? before.sourceCameraIds : input.camera_ids,
          direction: input.direction === undefined ? before.direction : input.direction,
          gpsLatitude: latitude,
          gpsLongitude: longitude,
          enabled: input.enabled ?? before.enabled,
          snapshotSettings: snapshot,
          // The previous answer was about the previous settings.
          lastOutcome: null,
          lastOutcomeDetail: null,
          lastOutcomeAt: null,
          updatedAt: ctx.clock.now(),
        })
        .where(eq(cameras.id, before.id))
        .returning();
      if (!camera) throw new Error('camera update returned nothing');
      const changed = Object.keys(input).filter((k) => k !== 'password' && k !== 'token');
      const action =
        input.enabled === false && before.enabled ? 'camera.disabled' : input.enabled === true && !before.enabled ? 'camera.enabled' : 'camera.edited';
      return { camera, audit: { action, detail: { fields: changed, credentials_changed: newSecret || loginRemoved } } };
    },
    actor,
  );
}

/** Removed cameras stay as rows (their detections keep a name); they are no longer sent to the device. */
export function removeCamera(ctx: CollectorContext, actor: Actor, collectorId: string, cameraId: string): Promise<CameraChange> {
  return changeOf(
    ctx,
    collectorId,
    async (tx, collector, now) => {
      const before = await lockCamera(tx, collector.id, cameraId);
      // The credentials go with the camera: nothing left to re-seal or leak.
      const [camera] = await tx.db
        .update(cameras)
        .set({ removedAt: now, escrowedCredentials: null, updatedAt: now })
        .where(eq(cameras.id, before.id))
        .returning();
      if (!camera) throw new Error('camera update returned nothing');
      return { camera, audit: { action: 'camera.removed', detail: { name: before.name } } };
    },
    actor,
  );
}
