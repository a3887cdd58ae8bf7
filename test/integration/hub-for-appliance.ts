/**
 * Test helpers for the lifecycle: a real hub (createHubApp on a loopback listener over a
 * fresh database), an appliance claimed against it over HTTP, and a fake rest-of-appliance
 * (camera states the test controls, configs applied recorded). Not imported by production code.
 */
import { CLAIM_PATHS } from '@alpr/shared/protocol/paths';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Test } from 'tap';
import { enrollmentResponseSchema, type EnrollmentResponse } from '@alpr/shared/protocol/collector';
import { createHubApp } from '../../hub/src/app.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { collectorTestContext, type CollectorTestContext } from '../../hub/src/collectors/collectors.test-helper.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLoadMonitor } from '../../hub/src/ingest/load-monitor.ts';
import type { CameraState } from '../../appliance/src/cameras/status.ts';
import type { ApplianceConfig } from '../../appliance/src/config/schema.ts';
import { centralConfigFileOf, storeEnrollment } from '../../appliance/src/keystore/keystore.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { generateDeviceKeyPair, type DeviceKeyPair } from '../../appliance/src/vault/sealed.ts';
import type { Vault } from '../../appliance/src/vault/vault.ts';
import { createCommandRunner } from '../../appliance/src/lifecycle/commands.ts';
import { startHeartbeat } from '../../appliance/src/lifecycle/heartbeat.ts';
import type { CommandRunnerDeps, KeyProof, LifecycleLog, Timers } from '../../appliance/src/lifecycle/ports.ts';

export interface TestHub {
  ctx: CollectorTestContext;
  base: string;
}

export async function startTestHub(t: Test): Promise<TestHub> {
  const ctx = await collectorTestContext(t);
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-lifecycle-hub-'));
  t.teardown(() => rm(imageDir, { recursive: true, force: true }));
  const app = createHubApp({ ...ctx, images: openImageStore(imageDir, { db: ctx.db }), load: createLoadMonitor() });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { ctx, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface ClaimedAppliance {
  dataDir: string;
  centralConfigFile: string;
  localConfigFile: string;
  enrollment: EnrollmentResponse;
  deviceKeys: DeviceKeyPair;
  vault: Vault;
  serial: string;
}

/** Create a pending collector on the hub, claim it over HTTP as the appliance would, store it. */
export async function claimOverHttp(t: Test, hub: TestHub, config: Record<string, unknown> = {}): Promise<ClaimedAppliance> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-lifecycle-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const serial = `serial:SN-${Math.random().toString(36).slice(2, 10)}`;
  const created = await createCollector(hub.ctx, SYSTEM_ACTOR, { siteName: 'Lifecycle', config });
  const deviceKeys = generateDeviceKeyPair();
  const res = await fetch(`${hub.base}${CLAIM_PATHS[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ claim_code: created.claimCode, hardware_id: serial, public_key: deviceKeys.publicKey }),
  });
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${await res.text()}`);
  const enrollment = enrollmentResponseSchema.parse(await res.json());
  const ctx = { dataDir, identity: fixedIdentity(serial), now: () => new Date() };
  const { vault } = await storeEnrollment(ctx, { ...enrollment, hub_url: hub.base }, deviceKeys);
  return { dataDir, centralConfigFile: centralConfigFileOf(dataDir), localConfigFile: join(dataDir, 'appliance.toml'), enrollment, deviceKeys, vault, serial };
}

export const silentLog: LifecycleLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Timers that only record: the test beats by hand (beatNow) and reads the delays asked for. */
export function recordingTimers(): Timers & { delays: number[] } {
  const delays: number[] = [];
  return { delays, setTimeout: (_fn, ms) => (delays.push(ms), delays.length), clearTimeout: () => undefined };
}

/** Real timers for the config watch (a few ms in tests). */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface FakeAppliance {
  /** The key every call uses, as main.ts holds it; a rotate_key switches it. */
  apiKey: string | undefined;
  /** Set by startTestHeartbeat to the heartbeat's proof. */
  prove: () => Promise<KeyProof>;
  cameras: Map<string, CameraState>;
  applied: ApplianceConfig[];
  stopped: number;
  restarted: number;
  deps: CommandRunnerDeps;
}

/**
 * The rest of the appliance as seen by the runner. Applying a configuration whose camera
 * has host `broken.invalid` takes that camera OFFLINE, as a wrong address would.
 */
export function fakeAppliance(claimed: ClaimedAppliance, initialConfigVersion: number, onStop: () => Promise<void> = async () => undefined): FakeAppliance {
  const fake: FakeAppliance = {
    apiKey: claimed.enrollment.api_key,
    prove: async () => 'unreachable',
    cameras: new Map([['cam-1', 'ONLINE']]),
    applied: [],
    stopped: 0,
    restarted: 0,
    deps: {
      collectorId: claimed.enrollment.collector_id,
      hubPublicKey: claimed.enrollment.hub_public_key,
      dataDir: claimed.dataDir,
      centralConfigFile: claimed.centralConfigFile,
      localConfigFile: claimed.localConfigFile,
      vault: claimed.vault,
      keys: {
        current: () => fake.apiKey,
        use: (key) => {
          fake.apiKey = key;
        },
        prove: () => fake.prove(),
      },
      initialConfigVersion,
      applyConfig: async (config) => {
        fake.applied.push(config);
        for (const camera of config.cameras) fake.cameras.set(camera.id, camera.host === 'broken.invalid' ? 'OFFLINE' : 'ONLINE');
      },
      health: () => ({ cameras: [...fake.cameras].map(([id, state]) => ({ id, state, lastError: state === 'OFFLINE' ? 'connect ENOTFOUND' : null })) }),
      stop: async () => {
        fake.stopped += 1;
        await onStop();
      },
      restart: async () => {
        fake.restarted += 1;
      },
      log: silentLog,
      timers: realTimers,
      watch: { periodMs: 30, sampleMs: 10 },
    },
  };
  return fake;
}

/** The heartbeat loop of a claimed appliance with a fake rest-of-appliance; `beat` = one beat and its commands. */
export function startTestHeartbeat(
  t: Test,
  hub: TestHub,
  claimed: ClaimedAppliance,
  fake: FakeAppliance,
  apiKey: () => string | undefined = () => fake.apiKey,
) {
  const runner = createCommandRunner(fake.deps);
  const timers = recordingTimers();
  const heartbeat = startHeartbeat({
    hubUrl: hub.base,
    apiKey,
    clock: { now: () => Date.now() },
    timers,
    random: () => 0.5,
    log: silentLog,
    intervalSeconds: 60,
    report: () => ({
      uptime_seconds: 10,
      queue_depth: 0,
      cameras_online: [...fake.cameras.values()].filter((s) => s === 'ONLINE').length,
      cameras_total: fake.cameras.size,
      edge_version: '0.1.0',
    }),
    runner,
  });
  fake.prove = () => heartbeat.prove();
  t.teardown(() => heartbeat.stop());
  const beat = async (): Promise<void> => {
    await heartbeat.beatNow();
    await heartbeat.idle();
  };
  return { runner, heartbeat, timers, beat };
}

/** A collector waiting to be claimed on the test hub, for the setup page's claim flow. */
export async function pendingCollector(hub: TestHub, config: Record<string, unknown> = {}): Promise<{ collectorId: string; claimCode: string }> {
  const created = await createCollector(hub.ctx, SYSTEM_ACTOR, { siteName: 'Setup page', config });
  return { collectorId: created.collectorId, claimCode: created.claimCode };
}
