import { isReaderType } from '@alpr/shared/adapters/types';
import type { CameraIdentity } from '@alpr/shared/adapters/types';
import { displayName } from './config.ts';
import type { CameraConfig } from './config.ts';
import type { CameraLog, Clock, CursorStore, DetectionSink, Random, RunnerDeps, Sleep } from './ports.ts';
import { realSleep, systemClock } from './ports.ts';
import type { CameraRunner } from './runner-handle.ts';
import { createStatusTracker } from './status.ts';
import type { CameraStatus, CameraStatusTracker } from './status.ts';
import { startFrigate } from './frigate.ts';
import { startVendorAPull } from './vendor-a-pull.ts';
import { startVendorBPull } from './vendor-b-pull.ts';
import { startVendorBPush } from './vendor-b-push.ts';
import type { VendorBConsole } from './vendor-b-console.ts';
import type { FrameReader } from '../reader/types.ts';
import { openFrameJobs } from './frame-jobs.ts';
import type { FrameJobs } from './frame-jobs.ts';
import { startSnapshotCamera } from './snapshot-camera.ts';
import type { FrameCounters, LastFrame, SnapshotRunner } from './snapshot-camera.ts';

/**
 * Starts one runner per configured camera: vendor_a pull (Digest poller), vendor_b pull
 * (events poller), vendor_b push (updates WebSocket). A vendor_a push camera has no
 * runner of its own, the ingest routes receive it; it still gets a status entry, which
 * the ingest app updates through `statusOf`.
 */

export interface StartRunnersOptions {
  cameras: readonly CameraConfig[];
  sink: DetectionSink;
  cursors: CursorStore;
  log: CameraLog;
  clock?: Clock;
  random?: Random;
  sleep?: Sleep;
  /** The on-device plate reader for ordinary cameras (`snapshot`); shared by all of them. */
  reader?: FrameReader;
  /**
   * The frame worker of the ordinary cameras. Absent: one is started with the first of them
   * and closed with the runners. One passed in stays open for its owner to close (tests that
   * start runners many times keep one warm worker instead of starting one each time).
   */
  frames?: FrameJobs;
}

export interface CameraRunners {
  stop(): Promise<void>;
  statuses(): CameraStatus[];
  /** For the ingest app: the tracker of a push camera. */
  statusOf(cameraId: string): CameraStatusTracker | undefined;
  /** For the ingest app: vendor_b camera id -> MAC from every console's bootstrap. */
  vendorBCameras(): ReadonlyMap<string, CameraIdentity>;
  /** For the setup page's "test" button: an ordinary camera's last frame read, and its frame counts. */
  lastFrame(cameraId: string): { frame: LastFrame | undefined; counters: FrameCounters; url: string | undefined } | undefined;
}

type Started = CameraRunner & { console?: VendorBConsole; tracker?: CameraStatusTracker; snapshot?: SnapshotRunner };

function passivePushRunner(config: CameraConfig, clock: Clock): Started {
  const tracker = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: config.vendor, mode: 'push', source: config.source ?? 'local' },
    clock,
  );
  return { id: config.id, tracker, status: () => tracker.snapshot(), stop: async () => undefined };
}

export function startCameraRunners(options: StartRunnersOptions): CameraRunners {
  const deps: RunnerDeps = {
    sink: options.sink,
    cursors: options.cursors,
    log: options.log,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? realSleep,
  };
  // One frame worker for every ordinary camera, started only when there is one.
  let frames: FrameJobs | undefined = options.frames;
  const runners: Started[] = options.cameras.map((config) => {
    if (config.vendor === 'snapshot') {
      frames ??= openFrameJobs();
      const runner = startSnapshotCamera(config, { ...deps, reader: options.reader, frames });
      return { ...runner, snapshot: runner };
    }
    // Plate readers (docs/readers.md) post to the ingest route like a vendor_a push camera.
    if (isReaderType(config.vendor)) return passivePushRunner(config, deps.clock);
    if (config.vendor === 'frigate') return startFrigate(config, deps);
    if (config.vendor === 'vendor_a') {
      return config.mode === 'pull' ? startVendorAPull(config, deps) : passivePushRunner(config, deps.clock);
    }
    return config.mode === 'pull' ? startVendorBPull(config, deps) : startVendorBPush(config, deps);
  });
  deps.log.info({ cameras: runners.map((r) => r.id) }, 'camera runners started');
  return {
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
      if (frames !== options.frames) await frames?.close();
    },
    statuses: () => runners.map((r) => r.status()),
    statusOf: (id) => runners.find((r) => r.id === id)?.tracker,
    vendorBCameras() {
      const all = new Map<string, CameraIdentity>();
      for (const r of runners) for (const [id, camera] of r.console?.cameras ?? []) all.set(id, camera);
      return all;
    },
    lastFrame(id) {
      const s = runners.find((r) => r.id === id)?.snapshot;
      return s ? { frame: s.lastFrame(), counters: s.frameCounters(), url: s.sourceUrl() } : undefined;
    },
  };
}
