import WebSocket from 'ws';
import type { RawData } from 'ws';
import { getAdapter } from '@alpr/shared/adapters/factory';
import type { PacketStream, ParseOutcome } from '@alpr/shared/adapters/types';
import { baseUrlOf, displayName, verifiesTls } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver, reportIssues } from './deliver.ts';
import { ApplianceError, isSinkRefused } from '../errors.ts';
import { messageOf } from './errors.ts';
import { runCameraLoop } from './poll-loop.ts';
import type { StepResult } from './poll-loop.ts';
import type { RunnerDeps } from './ports.ts';
import type { CameraRunner } from './runner-handle.ts';
import { createStatusTracker } from './status.ts';
import { UPDATES_PATH, openVendorBConsole, wantedCamera } from './vendor-b-console.ts';
import type { VendorBConsole } from './vendor-b-console.ts';
import { catchUpMessages } from './vendor-b-catch-up.ts';

/**
 * vendor_b push (docs/camera-formats.md "vendor_b updates WebSocket"): the private updates
 * WebSocket `/proxy/protect/ws/updates?lastUpdateId=<bootstrap.lastUpdateId>`, binary packets fed
 * to the shared stream decoder, thumbnails fetched like the pull runner's.
 *
 * The socket drops now and then (docs/camera-formats.md "vendor_b updates WebSocket"). Every
 * (re)connect loads the bootstrap again (a fresh `lastUpdateId`, new cameras) and then runs ONE
 * catch-up query over the gap: every smart event since `seenUpTo - catchUpMarginMs` is pushed into
 * the SAME decoder as an `add` before any socket message, so an event whose updates were lost while
 * disconnected is completed from the history, one still in progress is completed by the socket
 * later, and one already emitted is ignored by the decoder (and by the buffer's detection_id
 * check). `seenUpTo` is the appliance time of the last message whose detections were committed;
 * it is stored, so a restart catches up too. The margin (60 s) covers events that started
 * before that message and clock skew between appliance and console.
 */

export const vendorBPushCursorKey = (cameraId: string): string => `camera:${cameraId}:vendor_b:ws`;

/** A silent console is probed this often; no pong by the next probe ends the socket. */
const PING_EVERY_MS = 30_000;
/** Protect packets are small JSON frames; 16 MiB bounds a broken or hostile peer. */
const MAX_PAYLOAD = 16 * 1024 * 1024;

const toBytes = (data: RawData): Uint8Array => (Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data);

export function startVendorBPush(config: CameraConfig, deps: RunnerDeps): CameraRunner & { console: VendorBConsole } {
  const status = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: 'vendor_b', mode: 'push', source: config.source ?? 'local' },
    deps.clock,
  );
  const nvr = openVendorBConsole(config, deps);
  const adapter = getAdapter('vendor_b');
  const openStream = (): PacketStream => {
    if (!adapter.openStream) throw new Error('vendor_b adapter has no stream decoder');
    return adapter.openStream(nvr.context());
  };
  const key = vendorBPushCursorKey(config.id);
  const stopper = new AbortController();
  let stream = openStream();
  let seenUpTo: number | undefined;
  let current: WebSocket | undefined;

  /** Rule 2 reporting, camera filter, thumbnails, sink; throws ApplianceError `sink_refused`. */
  async function commit(outcome: ParseOutcome): Promise<number> {
    reportIssues(outcome, { source: config.id, status, log: deps.log });
    const wanted = outcome.detections.filter((d) => wantedCamera(config, d.detection.camera.id));
    await deliver(wanted, {
      source: config.id,
      sink: deps.sink,
      status,
      log: deps.log,
      signal: stopper.signal,
      fetchImage: (path) => nvr.fetchThumbnail(path, stopper.signal),
    });
    return wanted.length;
  }

  async function advance(to: number, persist: boolean): Promise<void> {
    seenUpTo = Math.max(seenUpTo ?? to, to);
    if (!persist) return;
    try {
      await deps.cursors.set(key, String(seenUpTo));
    } catch (error) {
      throw new ApplianceError('sink_refused', `cannot store the cursor: ${messageOf(error)}`, { cause: error });
    }
  }

  function connect(): Promise<WebSocket> {
    const lastUpdateId = nvr.lastUpdateId();
    const query = lastUpdateId ? `?lastUpdateId=${encodeURIComponent(lastUpdateId)}` : '';
    const ws = new WebSocket(`${baseUrlOf(config, 'ws')}${UPDATES_PATH}${query}`, {
      headers: nvr.client.authHeaders(),
      rejectUnauthorized: verifiesTls(config),
      handshakeTimeout: config.requestTimeoutMs,
      maxPayload: MAX_PAYLOAD,
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        ws.removeAllListeners('error');
        resolve(ws);
      });
      ws.once('error', (error) => reject(new ApplianceError('camera_unreachable', `updates socket: ${messageOf(error)}`, { cause: error })));
    });
  }

  /** One connection's life: catch-up, then messages in order, until the socket closes. */
  async function session(ws: WebSocket, connectedAt: number): Promise<{ messages: number }> {
    let failure: unknown;
    let messages = 0;
    let alive = true;
    const guard = async (work: () => Promise<void>): Promise<void> => {
      if (failure !== undefined) return;
      try {
        await work();
      } catch (error) {
        failure = error;
        ws.terminate();
      }
    };
    const from = (seenUpTo ?? connectedAt - config.initialBacklogMs) - config.catchUpMarginMs;
    let chain = guard(async () => {
      const outcome = await catchUpMessages(nvr, stream, { fromMs: from, toMs: deps.clock.now() });
      const committed = await commit(outcome);
      await advance(connectedAt, committed > 0);
    });
    ws.on('message', (data: RawData) => {
      const receivedAt = deps.clock.now();
      messages += 1;
      chain = chain.then(() =>
        guard(async () => {
          const committed = await commit(stream.push(toBytes(data)));
          await advance(receivedAt, committed > 0);
        }),
      );
    });
    ws.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) ws.terminate();
      alive = false;
      ws.ping();
    }, PING_EVERY_MS);
    ws.on('error', (error) => deps.log.warn({ camera: config.id, error: messageOf(error) }, 'updates socket error'));
    await new Promise<void>((resolve) => ws.once('close', () => resolve()));
    clearInterval(ping);
    await chain;
    if (failure !== undefined) {
      // Detections the decoder emitted were not committed: a fresh decoder lets the next
      // catch-up emit them again.
      if (isSinkRefused(failure)) stream = openStream();
      throw failure;
    }
    return { messages };
  }

  async function step(): Promise<StepResult> {
    if (seenUpTo === undefined) {
      const stored = Number((await deps.cursors.get(key)) ?? Number.NaN);
      if (Number.isFinite(stored)) seenUpTo = stored;
    }
    await nvr.refreshBootstrap();
    const ws = await connect();
    current = ws;
    if (stopper.signal.aborted) ws.terminate();
    status.online();
    deps.log.info({ camera: config.id, lastUpdateId: nvr.lastUpdateId() }, 'updates socket open');
    const { messages } = await session(ws, deps.clock.now());
    current = undefined;
    if (stopper.signal.aborted) return 'idle';
    // A socket that carried data worked: reconnect after the base delay, backoff reset.
    // One that closed before any message counts as a failed attempt (exponential backoff).
    if (messages === 0) throw new ApplianceError('camera_unreachable', 'updates socket closed before any message');
    status.offline('updates socket closed');
    status.count('reconnects');
    deps.log.warn({ camera: config.id, attempt: 1, delayMs: config.backoffBaseMs }, 'updates socket closed; reconnecting');
    return 'idle';
  }

  const loop = runCameraLoop(config, deps, { intervalMs: config.backoffBaseMs, status, signal: stopper.signal, step });

  let stopping: Promise<void> | undefined;
  return {
    id: config.id,
    console: nvr,
    status: () => status.snapshot(),
    stop() {
      stopping ??= (async () => {
        stopper.abort();
        current?.terminate();
        await loop;
        await nvr.close();
      })();
      return stopping;
    },
  };
}
