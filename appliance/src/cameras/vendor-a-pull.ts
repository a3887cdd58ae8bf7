import { getAdapter } from '@alpr/shared/adapters/factory';
import { baseUrlOf, contextOf, displayName, pollIntervalOf, verifiesTls } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver, reportIssues } from './deliver.ts';
import { ApplianceError } from '../errors.ts';
import { messageOf } from './errors.ts';
import { createDigestClient } from './http/digest.ts';
import type { CameraRequest, CameraResponse } from './http/transport.ts';
import { VENDOR_A_IMAGE_POLICY, fetchImage } from './images.ts';
import { runCameraLoop } from './poll-loop.ts';
import type { StepResult } from './poll-loop.ts';
import type { RunnerDeps } from './ports.ts';
import type { CameraRunner } from './runner-handle.ts';
import { createStatusTracker } from './status.ts';
import { afterTimeBody, initialCursor, isLaterCursor } from './vendor-a-cursor.ts';
import { CAMERA_TIME_PATH, DEVICE_INFO_PATH, localTimeFromResponse, macFromDeviceInfo } from './vendor-a-device.ts';
import {
  clockWarning,
  correctCaptureTime,
  cursorForClock,
  effectiveOffset,
  nextClockReading,
  parseCameraTime,
  shiftDigits,
  withCapturedAt,
  zoneWarning,
  type CameraTime,
  type ClockReading,
} from './camera-clock.ts';
import type { ParsedDetection } from '@alpr/shared/adapters/types';

/**
 * vendor_a pull (docs/camera-formats.md "vendor_a pull"): every `pollIntervalMs` (default 2 s) POST
 * `<AfterTime><picTime>CURSOR</picTime></AfterTime>` with Digest auth to
 * `/ISAPI/Traffic/channels/{channel}/vehicleDetect/plates` (or GET `?picTime=CURSOR`, the
 * older documented variant, when configured or when the device refuses POST), parse with the shared
 * adapter, fetch each plate image, sink every detection, and only THEN move and store the cursor:
 * a crash in between re-reads the page (the buffer drops the repeats by detection_id,
 * which is the picName) and never skips one.
 */

export const vendorACursorKey = (cameraId: string): string => `camera:${cameraId}:vendor_a:picName`;

const platesPath = (channel: number): string => `/ISAPI/Traffic/channels/${channel}/vehicleDetect/plates`;

/** A device without the clock API is asked again after this long (firmware may be updated). */
const CLOCK_UNSUPPORTED_RETRY_MS = 10 * 60_000;

/** What a device that does not take POST on the plates path answers. */
const METHOD_REFUSED = new Set([405, 501]);

export function startVendorAPull(config: CameraConfig, deps: RunnerDeps): CameraRunner {
  const status = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: 'vendor_a', mode: 'pull', source: config.source ?? 'local' },
    deps.clock,
  );
  const client = createDigestClient({
    username: config.username ?? '',
    password: config.password ?? '',
    rejectUnauthorized: verifiesTls(config),
    headersTimeoutMs: config.requestTimeoutMs,
    bodyTimeoutMs: config.requestTimeoutMs,
  });
  const base = baseUrlOf(config);
  const adapter = getAdapter('vendor_a');
  const key = vendorACursorKey(config.id);
  const stopper = new AbortController();
  let mac = config.mac;
  let cursor: string | undefined;
  let method: 'POST' | 'GET' = config.pullMethod === 'GET' ? 'GET' : 'POST';
  // The camera's clock (camera-clock.ts): offset now and before the last change, when checked.
  let offsetMs: number | null = null;
  let previousOffsetMs: number | null = null;
  let reading: ClockReading | null = null;
  let nextClockCheckMs = 0;

  async function call(req: CameraRequest): Promise<CameraResponse> {
    try {
      return await client.request(req);
    } catch (error) {
      throw new ApplianceError('camera_unreachable', messageOf(error), { cause: error });
    }
  }

  /**
   * Reads the camera's clock: its offset (camera minus true time; the camera shows whole
   * seconds, so +500 ms centres the estimate), the warnings for the installer, and the
   * camera's wall clock for the cursor. Undefined when the device has no clock API.
   */
  async function checkClock(): Promise<CameraTime | undefined> {
    const sentMs = deps.clock.now();
    const res = await call({ url: `${base}${CAMERA_TIME_PATH}` });
    const receivedMs = deps.clock.now();
    const text = localTimeFromResponse(res);
    const time = text === undefined ? undefined : parseCameraTime(text);
    if (!time) {
      nextClockCheckMs = receivedMs + CLOCK_UNSUPPORTED_RETRY_MS;
      return undefined;
    }
    const measured = time.epochMs + 500 - (sentMs + receivedMs) / 2;
    const next = nextClockReading(reading, { offsetMs: measured, roundTripMs: receivedMs - sentMs });
    if (next.change === 'changed') {
      deps.log.warn({ camera: config.id, from_ms: offsetMs, to_ms: measured }, 'camera clock changed');
      previousOffsetMs = offsetMs;
    }
    reading = next.use;
    offsetMs = reading.offsetMs;
    const warnings = [clockWarning(offsetMs), zoneWarning(time.utcOffsetMinutes, config.timezone, receivedMs)].filter((w): w is string => w !== null);
    const sign = time.utcOffsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(time.utcOffsetMinutes);
    status.clock({
      offsetMs: Math.round(offsetMs),
      source: 'device',
      checkedAt: new Date(receivedMs).toISOString(),
      utcOffset: `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`,
      warnings,
    });
    // A camera whose clock is off is watched at every poll: a correction is then noticed at once.
    nextClockCheckMs = receivedMs + (effectiveOffset(offsetMs) !== 0 ? 0 : config.clockCheckMs);
    return time;
  }

  async function prepare(): Promise<string> {
    mac ??= macFromDeviceInfo(await call({ url: `${base}${DEVICE_INFO_PATH}` }));
    const now = deps.clock.now();
    const time = now >= nextClockCheckMs ? await checkClock() : undefined;
    if (cursor === undefined) {
      const stored = await deps.cursors.get(key);
      // The first cursor comes from the camera's own clock when it has one: a camera years
      // behind or ahead would otherwise answer nothing, or everything, after the appliance's time.
      cursor =
        stored ?? (time ? `${shiftDigits(time.localDigits, -config.initialBacklogMs)}0000` : initialCursor(now, config.initialBacklogMs, config.timezone));
      deps.log.info({ camera: config.id, cursor, stored: stored !== null, from: time ? 'camera clock' : 'appliance clock' }, 'vendor_a pull starts');
    }
    if (time) {
      const next = cursorForClock(cursor, time.localDigits);
      if (next.rewound) {
        deps.log.warn(
          { camera: config.id, cursor, camera_time: time.localDigits, rewound_to: next.cursor },
          'camera clock went back (summer time ended or clock corrected): cursor rewound',
        );
        await deps.cursors.set(key, next.cursor);
        cursor = next.cursor;
        status.count('clockRewinds');
      }
    }
    return mac;
  }

  /** Capture times in true time (camera-clock.ts); the camera's own time kept in `raw`. */
  function corrected(items: ParsedDetection[]): ParsedDetection[] {
    if (offsetMs === null) return items;
    const now = deps.clock.now();
    return items.map((item) => {
      const cameraMs = Date.parse(item.detection.timestamp);
      const fixed = correctCaptureTime(cameraMs, offsetMs, previousOffsetMs, now);
      if (!fixed.corrected) return item;
      status.count('timesCorrected');
      return withCapturedAt(item, fixed.ms);
    });
  }

  function platesRequest(from: string): CameraRequest {
    const url = `${base}${platesPath(config.channel)}`;
    if (method === 'GET') return { url: `${url}?picTime=${encodeURIComponent(from)}` };
    return { method: 'POST', url, headers: { 'content-type': 'application/xml; charset="UTF-8"' }, body: afterTimeBody(from) };
  }

  async function step(): Promise<StepResult> {
    const cameraMac = await prepare();
    const from = cursor as string;
    let res = await call(platesRequest(from));
    if (method === 'POST' && config.pullMethod === 'auto' && METHOD_REFUSED.has(res.status)) {
      deps.log.info({ camera: config.id, status: res.status }, 'vendor_a device refuses POST on the plates list; pulling by GET');
      method = 'GET';
      res = await call(platesRequest(from));
    }
    if (res.status !== 200) throw new ApplianceError('camera_unreachable', `plates list answered HTTP ${res.status}`);
    status.online();
    const contentType = res.headers['content-type'];
    const outcome = adapter.parse({ body: res.body, ...(typeof contentType === 'string' ? { contentType } : {}) }, contextOf(config, cameraMac));
    reportIssues(outcome, { source: config.id, status, log: deps.log });
    if (outcome.failure !== undefined) return 'idle';
    await deliver(corrected(outcome.detections), {
      source: config.id,
      sink: deps.sink,
      status,
      log: deps.log,
      signal: stopper.signal,
      fetchImage: (path) =>
        fetchImage((p) => client.request({ url: `${base}${p}` }), path, VENDOR_A_IMAGE_POLICY, {
          clock: deps.clock,
          sleep: deps.sleep,
          signal: stopper.signal,
        }),
    });
    if (outcome.cursor === undefined || !isLaterCursor(outcome.cursor, from)) return 'idle';
    try {
      await deps.cursors.set(key, outcome.cursor);
    } catch (error) {
      throw new ApplianceError('sink_refused', `cannot store the cursor: ${messageOf(error)}`, { cause: error });
    }
    cursor = outcome.cursor;
    // The camera hands out a page at a time (50 in the simulator): ask again at once.
    return 'more';
  }

  const loop = runCameraLoop(config, deps, { intervalMs: pollIntervalOf(config), status, signal: stopper.signal, step });

  let stopping: Promise<void> | undefined;
  return {
    id: config.id,
    status: () => status.snapshot(),
    stop() {
      stopping ??= (async () => {
        stopper.abort();
        await loop;
        await client.close();
      })();
      return stopping;
    },
  };
}
