import { getAdapter } from '@alpr/shared/adapters/factory';
import { eventsListOf } from '@alpr/shared/adapters/vendor-b/events-list';
import { displayName, pollIntervalOf } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver, reportIssues } from './deliver.ts';
import { ApplianceError } from '../errors.ts';
import { messageOf } from './errors.ts';
import { runCameraLoop } from './poll-loop.ts';
import type { StepResult } from './poll-loop.ts';
import type { RunnerDeps } from './ports.ts';
import type { CameraRunner } from './runner-handle.ts';
import { createStatusTracker } from './status.ts';
import { EVENTS_PAGE, cameraIdsOf, openVendorBConsole, wantedCamera } from './vendor-b-console.ts';
import type { VendorBConsole } from './vendor-b-console.ts';

/**
 * vendor_b pull (docs/camera-formats.md "vendor_b pull"): every `pollIntervalMs` (default 5 s) GET
 * the events history with `start` = cursor (INCLUSIVE, docs/adapters.md "Pull cursor"), `end` =
 * now, the smart `types` and `smartDetectTypes=licensePlate`. Ended events become detections;
 * their thumbnails are fetched through the console's token bucket; the cursor (epoch ms)
 * is stored only after the sink took every detection of the reply. Events that come back
 * because the start is inclusive keep their detection_id (the event id): the buffer drops
 * them as duplicates.
 */

export const vendorBPullCursorKey = (cameraId: string): string => `camera:${cameraId}:vendor_b:start`;

function parseJsonList(body: Buffer): readonly unknown[] | undefined {
  try {
    return eventsListOf(JSON.parse(body.toString('utf8')));
  } catch {
    return undefined;
  }
}

/** Whether the reply holds an event that started after `fromMs` (`start` read leniently, as the cursor is). */
function newerThan(list: readonly unknown[] | undefined, fromMs: number): boolean {
  return (list ?? []).some(
    (item) =>
      typeof item === 'object' && item !== null && typeof (item as { start?: unknown }).start === 'number' && (item as { start: number }).start > fromMs,
  );
}

export function startVendorBPull(config: CameraConfig, deps: RunnerDeps, shared?: { console?: VendorBConsole }): CameraRunner & { console: VendorBConsole } {
  const status = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: 'vendor_b', mode: 'pull', source: config.source ?? 'local' },
    deps.clock,
  );
  const nvr = shared?.console ?? openVendorBConsole(config, deps);
  const adapter = getAdapter('vendor_b');
  const key = vendorBPullCursorKey(config.id);
  const stopper = new AbortController();
  let cursor: number | undefined;

  async function step(): Promise<StepResult> {
    await nvr.refreshIfNeeded();
    if (cursor === undefined) {
      const stored = await deps.cursors.get(key);
      const parsed = stored === null ? Number.NaN : Number(stored);
      cursor = Number.isFinite(parsed) ? parsed : deps.clock.now() - config.initialBacklogMs;
      deps.log.info({ camera: config.id, cursor, stored: stored !== null }, 'vendor_b pull starts');
    }
    const from = cursor;
    const res = await nvr.queryEvents({ startMs: from, endMs: Math.max(from, deps.clock.now()), plateOnly: true });
    if (res.status !== 200) throw new ApplianceError('camera_unreachable', `events query answered HTTP ${res.status}`);
    status.online();
    const list = parseJsonList(res.body);
    // A camera adopted since the last bootstrap: learn its MAC before parsing.
    if (list) await nvr.refreshIfNeeded(cameraIdsOf(list));
    const contentType = res.headers['content-type'];
    const outcome = adapter.parse({ body: res.body, origin: 'pulled', ...(typeof contentType === 'string' ? { contentType } : {}) }, nvr.context());
    reportIssues(outcome, { source: config.id, status, log: deps.log });
    if (outcome.failure !== undefined) return 'idle';
    const wanted = outcome.detections.filter((d) => wantedCamera(config, d.detection.camera.id));
    await deliver(wanted, {
      source: config.id,
      sink: deps.sink,
      status,
      log: deps.log,
      signal: stopper.signal,
      fetchImage: (path) => nvr.fetchThumbnail(path, stopper.signal),
    });
    const next = outcome.cursor === undefined ? Number.NaN : Number(outcome.cursor);
    if (!Number.isFinite(next) || next <= from) {
      // The cursor stays. Current if nothing newer waits (a quiet camera at night must not
      // read as stuck after 30 minutes); held back if newer events are there (an event that
      // never ends, a page of one start), and then its age grows toward the hub's
      // cursor_stuck alert.
      if (!newerThan(list, from)) status.cursorCurrent();
      return 'idle';
    }
    try {
      await deps.cursors.set(key, String(next));
    } catch (error) {
      throw new ApplianceError('sink_refused', `cannot store the cursor: ${messageOf(error)}`, { cause: error });
    }
    cursor = next;
    status.cursorCurrent();
    return (list?.length ?? 0) >= EVENTS_PAGE ? 'more' : 'idle';
  }

  const loop = runCameraLoop(config, deps, { intervalMs: pollIntervalOf(config), status, signal: stopper.signal, step });

  let stopping: Promise<void> | undefined;
  return {
    id: config.id,
    console: nvr,
    status: () => status.snapshot(),
    stop() {
      stopping ??= (async () => {
        stopper.abort();
        await loop;
        if (!shared?.console) await nvr.close();
      })();
      return stopping;
    },
  };
}
