import { readerMac } from '@alpr/shared/adapters/reader/common';
import { buildDetection } from '@alpr/shared/detection/build';
import type { ParsedDetection } from '@alpr/shared/adapters/types';
import { ApplianceError } from '../errors.ts';
import type { FrameReader, PlateRead } from '../reader/types.ts';
import { ReaderError } from '../reader/types.ts';
import { displayName } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver } from './deliver.ts';
import { messageOf } from './errors.ts';
import { hasChanged } from './frame-change.ts';
import type { GreyThumbnail } from './frame-change.ts';
import type { FrameJobs } from './frame-jobs.ts';
import { addFrame, DEFAULT_VOTE_CONFIG, endPassages, emptyVoter, flushPassages } from './passage-vote.ts';
import type { PassageResult, VoteConfig } from './passage-vote.ts';
import { runCameraLoop } from './poll-loop.ts';
import type { RunnerDeps } from './ports.ts';
import { redacted, openRtspSource } from './rtsp-frames.ts';
import type { CameraRunner } from './runner-handle.ts';
import { openSnapshotSource } from './snapshot-source.ts';
import type { SnapshotSource } from './snapshot-source.ts';
import { createStatusTracker } from './status.ts';

/**
 * The ordinary-camera kind (docs/ordinary-cameras.md): take frames from a snapshot URL (or RTSP
 * through ffmpeg) at `framesPerSecond`, skip frames where nothing moved (frame-change.ts), read
 * plates in the ones that did (the on-device reader, appliance/src/reader/, in its worker), vote
 * across the frames of a passage (passage-vote.ts) and hand ONE detection per passage, with its
 * plate crop and scene as JPEGs, to the same buffer as every camera (deliver.ts).
 *
 * One frame at a time per camera is being checked or read; a frame taken while the previous one
 * is still in the reader is dropped, not queued, so a slow reader never builds a backlog and the
 * frame read is always a recent one.
 */

export interface SnapshotCameraDeps extends RunnerDeps {
  /** The on-device plate reader; absent when this device has none (the camera goes OFFLINE saying so). */
  reader: FrameReader | undefined;
  frames: FrameJobs;
}

/** What the setup page's "test" button shows: the last frame read, with what was found in it. */
export interface LastFrame {
  jpeg: Uint8Array;
  at: number;
  width: number;
  height: number;
  plates: PlateRead[];
  ms: number;
}

export interface FrameCounters {
  /** Frames fetched from the camera. */
  taken: number;
  /** Frames skipped because nothing moved. */
  unchanged: number;
  /** Frames dropped because the previous one was still being read. */
  dropped: number;
  /** Frames the reader read. */
  read: number;
  /** Passages ended, each one detection. */
  passages: number;
  /** Capture time (ISO UTC) of the last frame the reader finished with. */
  lastReadFrameAt: string | null;
}

export interface SnapshotRunner extends CameraRunner {
  lastFrame(): LastFrame | undefined;
  frameCounters(): FrameCounters;
  /** The snapshot URL in use (password removed), once found. */
  sourceUrl(): string | undefined;
}

/** Detections built but not yet taken by the buffer; beyond this the oldest is dropped (logged). */
const MAX_OUTBOX = 200;

export function startSnapshotCamera(config: CameraConfig, deps: SnapshotCameraDeps): SnapshotRunner {
  const status = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: 'snapshot', mode: 'pull', source: config.source ?? 'local' },
    deps.clock,
  );
  const stopper = new AbortController();
  const source: SnapshotSource = config.rtspUrl !== undefined ? openRtspSource(config) : openSnapshotSource(config, () => deps.clock.now());
  const vote: VoteConfig = { ...DEFAULT_VOTE_CONFIG, gapMs: config.passageGapMs };
  const voter = emptyVoter<Uint8Array>();
  const mac = config.mac ?? readerMac('snapshot', config.id);
  const counters: FrameCounters = { taken: 0, unchanged: 0, dropped: 0, read: 0, passages: 0, lastReadFrameAt: null };
  const outbox: ParsedDetection[] = [];
  let previous: GreyThumbnail | undefined;
  let busy: Promise<void> | undefined;
  let readerFailure: string | undefined;
  let last: LastFrame | undefined;
  /** Capture time of the last frame checked (read, or found unchanged): passages end by it, not by frames still waiting. */
  let examinedAt: number | undefined;

  /** One passage -> one detection: crop cut in the frame worker, scene = the frame as the camera sent it. */
  async function detectionOf(p: PassageResult<Uint8Array>): Promise<ParsedDetection | undefined> {
    const built = buildDetection({
      vendor: 'snapshot',
      timestamp: new Date(p.at),
      cameraId: config.id,
      cameraMac: mac,
      plateText: p.plate,
      confidence: p.confidence,
      ...(config.region !== undefined ? { region: config.region } : {}),
      candidates: p.candidates.map((c) => ({ text: c.plate, confidence: c.confidence })),
    });
    if (built.kind !== 'detection') {
      if (built.kind === 'invalid') deps.log.warn({ camera: config.id, reason: built.reason }, 'passage not turned into a detection');
      return undefined;
    }
    let crop: Uint8Array | undefined;
    try {
      crop = await deps.frames.crop(p.frame, p.box);
    } catch (error) {
      status.count('imageFailures');
      deps.log.warn({ camera: config.id, error: messageOf(error) }, 'plate crop not made; keeping the read with its scene');
    }
    return { detection: built.detection, images: { full_scene: p.frame, ...(crop ? { plate_crop: crop } : {}) }, fetchImages: [] };
  }

  async function queue(ended: PassageResult<Uint8Array>[]): Promise<void> {
    for (const p of ended) {
      counters.passages += 1;
      const parsed = await detectionOf(p);
      if (!parsed) continue;
      outbox.push(parsed);
      if (outbox.length > MAX_OUTBOX) {
        const lost = outbox.shift();
        status.count('errors');
        deps.log.error({ camera: config.id, detection: lost?.detection.detection_id }, 'read dropped: the buffer has refused reads for too long');
      }
    }
  }

  /** Change check, read, vote: runs beside the fetch loop, one frame at a time. */
  async function examine(jpeg: Uint8Array, at: number): Promise<void> {
    const { thumbnail } = await deps.frames.thumbnail(jpeg);
    if (!hasChanged(previous, thumbnail, config.changeThreshold)) {
      counters.unchanged += 1;
      examinedAt = at;
      return;
    }
    previous = thumbnail;
    if (!deps.reader) {
      readerFailure = 'this device has no plate reader installed, so it cannot read plates from an ordinary camera';
      return;
    }
    let result;
    try {
      result = await deps.reader.read(jpeg, config.region !== undefined ? { region: config.region } : {});
    } catch (error) {
      if (error instanceof ReaderError && error.code !== 'undecodable') readerFailure = `plate reader: ${error.message}`;
      else {
        status.count('errors');
        status.noteError(`frame not read: ${messageOf(error)}`);
      }
      return;
    }
    readerFailure = undefined;
    counters.read += 1;
    counters.lastReadFrameAt = new Date(at).toISOString();
    last = { jpeg, at, width: result.width, height: result.height, plates: result.plates, ms: result.ms };
    examinedAt = at;
    await queue(addFrame(voter, at, result.plates, jpeg, vote));
  }

  async function flushOutbox(): Promise<void> {
    while (outbox.length > 0) {
      const batch = outbox.slice(0, 20);
      await deliver(batch, { source: config.id, sink: deps.sink, status, log: deps.log, signal: stopper.signal });
      outbox.splice(0, batch.length);
    }
  }

  async function step(): Promise<'idle'> {
    await flushOutbox();
    if (readerFailure !== undefined) {
      const message = readerFailure;
      readerFailure = undefined;
      throw new ApplianceError('camera_unreachable', message);
    }
    const jpeg = await source.frame();
    const at = deps.clock.now();
    counters.taken += 1;
    status.online();
    if (busy) counters.dropped += 1;
    else {
      // Passages whose car left while the frames since were unchanged end here: a still road
      // after a car gives no read that would end them (addFrame ends passages only on a read).
      // By the last frame checked, not this one: while the reader is slower than the gap, a
      // frame not yet read may still show the car.
      const ended = examinedAt !== undefined ? endPassages(voter, examinedAt, vote) : [];
      busy = (async () => {
        await queue(ended);
        await examine(jpeg, at);
      })()
        .catch((error: unknown) => {
          status.count('errors');
          status.noteError(`frame not read: ${messageOf(error)}`);
          deps.log.warn({ camera: config.id, error: messageOf(error) }, 'frame not read');
        })
        .finally(() => {
          busy = undefined;
        });
    }
    return 'idle';
  }

  const loop = runCameraLoop(config, deps, { intervalMs: Math.round(1000 / config.framesPerSecond), status, signal: stopper.signal, step });
  deps.log.info(
    { camera: config.id, source: config.rtspUrl !== undefined ? redacted(config.rtspUrl) : (config.snapshotUrl ?? 'vendor paths') },
    'ordinary camera started',
  );

  let stopping: Promise<void> | undefined;
  return {
    id: config.id,
    status: () => ({ ...status.snapshot(), frames: { ...counters } }),
    lastFrame: () => last,
    frameCounters: () => ({ ...counters }),
    sourceUrl: () => source.url(),
    stop() {
      stopping ??= (async () => {
        stopper.abort();
        await loop;
        await busy;
        await source.close();
        // The passages still open end with the camera; their reads are kept if the buffer takes them now.
        await queue(flushPassages(voter));
        const rest = new AbortController();
        await deliver(outbox, { source: config.id, sink: deps.sink, status, log: deps.log, signal: rest.signal }).catch((error: unknown) => {
          deps.log.warn({ camera: config.id, error: messageOf(error), lost: outbox.length }, 'reads of open passages not buffered at stop');
        });
      })();
      return stopping;
    },
  };
}
