import { createApplianceMetrics } from '../metrics/appliance-metrics.ts';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import { closeBuffer, enforceRetention, openBuffer, type DetectionBuffer } from '../buffer/index.ts';
import type { ApplianceEnvironment } from '../config/load.ts';
import type { ApplianceConfig } from '../config/schema.ts';
import { createCommandRunner } from '../lifecycle/commands.ts';
import { loadConfigWithCredentials } from '../lifecycle/config-layers.ts';
import { startHeartbeat, type HeartbeatHandle } from '../lifecycle/heartbeat.ts';
import { heartbeatCameras } from '../cameras/heartbeat-cameras.ts';
import { createLog } from '../log.ts';
import { openCappedLogFile, type CappedLogFile } from '../log-file.ts';
import { openSetupVault } from '../setup/camera-store.ts';
import type { AddressOf } from '../http/request-guards.ts';
import { systemTimers } from '../uplink/ports.ts';
import { isVaultError } from '../errors.ts';
import type { HardwareIdentity } from '../vault/hardware-identity.ts';
import type { Vault } from '../vault/vault.ts';
import { resolveDiskCap, type DiskSpace } from './disk-cap.ts';
import type { Agent } from 'undici';
import { createHubAgent, type HubTrust } from '../hub-api/tls.ts';
import { replaceStoredHubPins } from '../keystore/keystore.ts';
import { createHubPins, type HubPins } from '../lifecycle/hub-pins.ts';
import type { IntakeMeter } from '../diagnostics/intake-rate.ts';
import { apiKeyOf, readEnrollment, reportOf, type EnrollmentState } from '../keystore/enrollment-state.ts';
import { createIntakeMeter, createLocalApp, listen, type Listening } from './local-server.ts';
import { startPipeline, type Pipeline } from './pipeline.ts';
import { lazyFrameReader } from './lazy-reader.ts';
import type { FrameReader } from '../reader/types.ts';

/**
 * The appliance process as a value: `createAppliance(environment, deps)` holds no state
 * until `start()` (keystore, configuration, buffer, pipeline, heartbeat, local server on
 * :8080) and `stop()` undoes it. main.ts only reads the environment, calls these and maps
 * signals; tests start several appliances in one process. A SIGKILL loses nothing committed.
 */
export const EDGE_VERSION = '0.1.0';

export interface ApplianceDeps {
  identity: HardwareIdentity;
  /** Default: a pino logger at the configured level. */
  log?: Logger;
  now?: () => Date;
  /** The `wipe` command's restart: under systemd (Restart=always) the process exits and comes back unclaimed. */
  restart?: () => Promise<void>;
  /** Free and total bytes of the data partition (default: statfs), for the default disk cap. */
  diskSpace?: (dir: string) => Promise<DiskSpace>;
  /** Peer address of a request; default the TCP socket's. Tests map a loopback alias to a public address. */
  addressOf?: AddressOf;
  /** Retention pass period; default 60 s. */
  retentionIntervalMs?: number;
}

export interface Appliance {
  /** Resolves once the local server listens; throws ApplianceError (`start_failed`, `invalid_config`) for a start that cannot work. */
  start(): Promise<Listening>;
  /** Stops every loop, the server and the buffer. Idempotent. */
  stop(): Promise<void>;
  enrollment(): EnrollmentState;
  pipeline(): Pipeline | undefined;
  buffer(): DetectionBuffer | undefined;
  /** The local server's app once started: the hostile-input sweep reads its route table. */
  httpApp(): Hono | undefined;
}

interface Running {
  log: Logger;
  buffer: DetectionBuffer;
  pipeline: Pipeline;
  heartbeat?: HeartbeatHandle;
  server?: Listening;
  app?: Hono;
  retention: ReturnType<typeof setInterval>;
  /** Changed by a claim made on the setup page; read by the uplink and heartbeat on every request. */
  creds: { hubUrl: string | undefined; apiKey: string | undefined };
  intake: IntakeMeter;
  /** The plate reader of ordinary cameras, opened on first use (lazy-reader.ts). */
  reader: FrameReader;
  /** Hub certificate pins (replaced at a claim) and the pinned agent for heartbeat and acks. */
  pins: { current: HubPins };
  hubAgent: Agent;
}

export function createAppliance(environment: ApplianceEnvironment, deps: ApplianceDeps): Appliance {
  const now = deps.now ?? (() => new Date());
  const keyContext = { dataDir: environment.dataDir, identity: deps.identity };
  let enrollment: EnrollmentState = { state: 'unclaimed' };
  let running: Running | undefined;
  let stopping: Promise<void> | undefined;
  let logFile: CappedLogFile | undefined;
  const startedAt = now().getTime();
  // One registry for the process: the upload histogram outlives pipeline restarts (docs/metrics.md).
  const metrics = createApplianceMetrics();

  /** Before the claim, cameras added on the setup page keep their secrets in the setup vault. */
  async function loadConfig(log?: Logger): Promise<{ config: ApplianceConfig; configVersion: number }> {
    let vault: Vault | undefined = enrollment.state === 'claimed' ? enrollment.vault : undefined;
    if (!vault) {
      try {
        vault = await openSetupVault(environment.dataDir, deps.identity);
      } catch (error) {
        // Same decision as the enrollment: shown, not fatal; cameras needing those secrets fail validation (invalid_config).
        if (!isVaultError(error)) throw error;
        log?.error({ problem: error.message }, 'setup vault unusable: re-enter the camera credentials on the setup page');
      }
    }
    return loadConfigWithCredentials(environment, vault);
  }

  function restartPipeline(r: Running, config: ApplianceConfig): Promise<void> {
    // A suspension outlives the restart (the hub still refuses): the page keeps its "since".
    const suspendedSinceMs = r.pipeline.uplink?.state().suspendedSinceMs ?? undefined;
    return r.pipeline.stop().then(() => {
      r.pipeline = startPipeline(config, {
        metrics,
        buffer: r.buffer,
        apiKey: () => r.creds.apiKey,
        hubUrl: config.hub_url ?? r.creds.hubUrl,
        log: r.log,
        intake: r.intake,
        trust: trustOf(r),
        reader: r.reader,
        ...(suspendedSinceMs !== undefined ? { suspendedSinceMs } : {}),
      });
    });
  }

  /** The pins of this enrollment (none before a claim); persisted into the sealed credentials. */
  function pinsFor(state: EnrollmentState, log: Logger): HubPins {
    const stored = state.state === 'claimed' ? state.enrollment : undefined;
    return createHubPins(
      {
        ...(stored?.hub_certificate_sha256 ? { current: stored.hub_certificate_sha256 } : {}),
        ...(stored?.hub_certificate_next_sha256 ? { next: stored.hub_certificate_next_sha256 } : {}),
      },
      {
        persist: async (pins) => {
          if (enrollment.state !== 'claimed') throw new Error('not claimed: no credentials file to hold the pin');
          await replaceStoredHubPins({ dataDir: environment.dataDir }, enrollment.vault, pins);
        },
        log,
        now,
      },
    );
  }

  /** Read through the running state, so a claim's new pins apply to agents already made. */
  const trustOf = (r: Pick<Running, 'pins'>): HubTrust => ({
    pins: () => r.pins.current.pins(),
    seen: (sha256) => r.pins.current.seen?.(sha256),
    refused: (sha256) => r.pins.current.refused?.(sha256),
  });

  /** Heartbeat and command runner: only with an enrollment (collector id, hub key). */
  function startClaimedServices(r: Running, claimed: Extract<EnrollmentState, { state: 'claimed' }>, url: string, version: number): void {
    const runner = createCommandRunner({
      collectorId: claimed.enrollment.collector_id,
      hubPublicKey: claimed.enrollment.hub_public_key,
      dataDir: environment.dataDir,
      centralConfigFile: environment.centralConfigFile,
      localConfigFile: environment.localConfigFile,
      vault: claimed.vault,
      // Every hub call reads the key through r.creds, so a rotate_key command switches
      // uplink, heartbeat and acks at once without a restart.
      keys: {
        current: () => r.creds.apiKey,
        use: (next) => {
          r.creds.apiKey = next;
        },
        prove: async () => (r.heartbeat ? r.heartbeat.prove() : 'unreachable'),
      },
      initialConfigVersion: version,
      applyConfig: (next) => restartPipeline(r, next),
      health: () => r.pipeline.health(),
      watch: { periodMs: r.pipeline.config.config_update_watch_seconds * 1000 },
      // From inside a wipe: the heartbeat is not awaited (the wipe runs in its command queue).
      stop: () => shutdown(),
      restart: deps.restart ?? (async () => undefined),
      log: r.log,
      timers: systemTimers,
      hubPins: r.pins.current,
    });
    r.heartbeat = startHeartbeat({
      hubUrl: url,
      dispatcher: r.hubAgent,
      apiKey: () => r.creds.apiKey,
      clock: { now: () => Date.now() },
      random: Math.random,
      log: r.log,
      intervalSeconds: r.pipeline.config.heartbeat_interval_seconds,
      runner,
      // Read on every beat: a config_update replaces the pipeline and its uplink.
      onHubStatus: (status) => r.pipeline.uplink?.hubStatus(status),
      report: () => {
        const statuses = r.pipeline.runners.statuses();
        const pending = r.buffer.sqlite.prepare('SELECT count(*) AS n FROM detections').get() as { n: number };
        return {
          uptime_seconds: Math.floor((now().getTime() - startedAt) / 1000),
          queue_depth: pending.n,
          cameras_online: statuses.filter((s) => s.state === 'ONLINE').length,
          cameras_total: statuses.length,
          edge_version: EDGE_VERSION,
          // The runners stamp on Date.now (pipeline.ts), so the cursor age counts on the same clock.
          cameras: heartbeatCameras(statuses, new Date()),
        };
      },
    });
  }

  async function start(): Promise<Listening> {
    if (running) throw new Error('appliance already started');
    await mkdir(environment.dataDir, { recursive: true, mode: 0o700 });
    enrollment = await readEnrollment(keyContext);
    const { config, configVersion } = await loadConfig(deps.log);
    // The device logs to a capped file under the data folder, which a wipe deletes (log-file.ts).
    logFile = deps.log || !environment.logFile ? undefined : openCappedLogFile(environment.logFile.path, environment.logFile.maxBytes);
    const log = deps.log ?? createLog(config.log_level, logFile);
    if (enrollment.state === 'unusable') {
      log.error({ code: enrollment.code, problem: enrollment.problem }, 'stored enrollment unusable: running unclaimed; re-claim this appliance');
    }
    const claimed = enrollment.state === 'claimed' ? enrollment : undefined;
    const bufferFile = join(environment.dataDir, 'buffer.sqlite');
    const existing = await stat(bufferFile).then(
      (s) => s.size,
      () => 0,
    );
    const diskCap = await resolveDiskCap(config.buffer.disk_cap_bytes, environment.dataDir, deps.diskSpace, existing);
    log.info({ disk_cap_bytes: diskCap.bytes, source: diskCap.source }, 'buffer disk cap');
    const buffer = openBuffer({
      file: bufferFile,
      clock: { now },
      log,
      synchronous: config.buffer.synchronous,
      limits: { retentionMs: config.buffer.retention_days * 86_400_000, diskCapBytes: diskCap.bytes },
    });
    const hubUrl = config.hub_url ?? claimed?.enrollment.hub_url;
    const key = apiKeyOf(enrollment, environment.apiKey);
    if (key?.staleEnvironmentPrefix) {
      log.warn(
        { stale_key_prefix: key.staleEnvironmentPrefix, key_prefix: apiKeyPrefix(key.apiKey) },
        'ALPR_API_KEY holds a key replaced by rotation: using the rotated key from credentials.enc; remove the variable',
      );
    }
    const apiKey = key?.apiKey;
    // Retention: the age limit and the disk cap, every minute (indexed deletes: cheap).
    const retention = setInterval(() => {
      try {
        enforceRetention(buffer, now());
      } catch (err) {
        log.error({ err }, 'retention pass failed');
      }
    }, deps.retentionIntervalMs ?? 60_000);
    retention.unref();
    const intake = createIntakeMeter(() => now().getTime());
    // Before the pipeline: its uplink reads the key on its first pass, during startPipeline.
    const creds = { hubUrl, apiKey };
    const pins = { current: pinsFor(enrollment, log) };
    const trust = trustOf({ pins });
    const reader = lazyFrameReader();
    const r: Running = {
      reader,
      log,
      buffer,
      retention,
      creds,
      intake,
      pins,
      hubAgent: createHubAgent({ trust }),
      pipeline: startPipeline(config, { buffer, apiKey: () => creds.apiKey, hubUrl, log, intake, trust, metrics, reader }),
    };
    running = r;
    if (claimed && hubUrl) startClaimedServices(r, claimed, hubUrl, configVersion);

    const app = createLocalApp({
      metrics,
      environment,
      identity: deps.identity,
      log,
      now,
      edgeVersion: EDGE_VERSION,
      pipeline: () => r.pipeline,
      reader,
      buffer,
      hubUrl: () => r.creds.hubUrl,
      apiKey: () => r.creds.apiKey,
      heartbeat: () => r.heartbeat?.state(),
      enrollment: () => reportOf(enrollment),
      diskCap,
      intake,
      ...(deps.addressOf ? { addressOf: deps.addressOf } : {}),
      ingest: config.ingest,
      claimedState: () => (enrollment.state === 'claimed' || r.creds.apiKey !== undefined ? 'claimed' : 'unclaimed'),
      ...(config.hub_url ? { defaultHubUrl: config.hub_url } : {}),
      reloadPipeline: async () => restartPipeline(r, (await loadConfig(log)).config),
      onClaimed: async (claimedHere) => {
        enrollment = await readEnrollment(keyContext);
        if (enrollment.state !== 'claimed') throw new Error(`the enrollment just stored does not load (${enrollment.state})`);
        r.creds.apiKey = apiKeyOf(enrollment, environment.apiKey)?.apiKey;
        r.creds.hubUrl = claimedHere.hubUrl;
        r.pins.current = pinsFor(enrollment, log);
        log.info({ collector_id: claimedHere.collectorId, key_prefix: claimedHere.keyPrefix }, 'claimed');
        await restartPipeline(r, (await loadConfig(log)).config);
        startClaimedServices(r, enrollment, claimedHere.hubUrl, claimedHere.configVersion);
      },
    });
    r.app = app;
    r.server = await listen(app, config.setup.host, config.setup.port);
    log.info({ url: r.server.url, cameras: config.cameras.length, claimed: enrollment.state === 'claimed' }, 'appliance listening');
    return r.server;
  }

  /** Everything but the heartbeat: a wipe calls this from inside the heartbeat's command queue. */
  function shutdown(): Promise<void> {
    stopping ??= (async () => {
      const r = running;
      if (!r) return;
      clearInterval(r.retention);
      await r.server?.close();
      await r.pipeline.stop();
      await r.reader.close().catch(() => undefined);
      closeBuffer(r.buffer);
    })();
    return stopping;
  }

  return {
    start,
    async stop() {
      // The heartbeat first: its report reads the buffer, which shutdown closes.
      await running?.heartbeat?.stop();
      await shutdown();
      // Not in shutdown(): a wipe acknowledges through this agent after shutting down.
      await running?.hubAgent.close().catch(() => undefined);
      logFile?.close();
    },
    enrollment: () => enrollment,
    pipeline: () => running?.pipeline,
    buffer: () => running?.buffer,
    httpApp: () => running?.app,
  };
}
