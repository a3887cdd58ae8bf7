import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';
import type { IClientOptions, MqttClient } from 'mqtt';
import { getAdapter } from '@alpr/shared/adapters/factory';
import { createFrigateDeduper } from '@alpr/shared/adapters/frigate/dedupe';
import { initialReconnectBackoff, nextReconnectDelay, resetReconnectBackoff, DEFAULT_RECONNECT_BACKOFF } from './backoff.ts';
import { baseUrlOf, displayName, verifiesTls } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver, reportIssues } from './deliver.ts';
import { isSinkRefused } from '../errors.ts';
import { messageOf } from './errors.ts';
import { createCameraAgent, sendOnce } from './http/transport.ts';
import type { ImageResult } from './images.ts';
import type { RunnerDeps } from './ports.ts';
import { createPushClock } from './push-clock.ts';
import type { CameraRunner } from './runner-handle.ts';
import { createStatusTracker } from './status.ts';
import { correctPushed } from './vendor-a-push.ts';

/**
 * Frigate as a source (docs/readers.md "Frigate"): subscribe to `<prefix>/events` on the broker
 * Frigate publishes to, turn each message into at most one read (shared adapter), drop the
 * repeats of an event's plate (one read per event and plate), fetch the event snapshot from
 * Frigate's HTTP API, and hand the read to the same clock check, dedupe and durable buffer as
 * every push source.
 *
 * Frigate publishes its events with QoS 0 and keeps no backlog for us: a message that arrives
 * while the buffer refuses is retried here (backoff, until stop), never dropped, and a broker
 * outage loses what Frigate published meanwhile (docs/readers.md says so). The broker connection
 * reconnects on error rule 1's backoff (1 s doubling to 60 s by default).
 */

/** Frigate's snapshot of a 4K frame is ~0.3-1 MB; 8 MiB bounds a broken server. */
const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;
/** An event sends a few messages a second while a car moves; 1,000 waiting is minutes of a stuck buffer. */
const MAX_PENDING = 1_000;

export function startFrigate(config: CameraConfig, deps: RunnerDeps): CameraRunner {
  const status = createStatusTracker(
    { id: config.id, name: displayName(config), vendor: 'frigate', mode: 'pull', source: config.source ?? 'local' },
    deps.clock,
  );
  const adapter = getAdapter('frigate');
  const dedupe = createFrigateDeduper();
  const clock = createPushClock();
  const stopper = new AbortController();
  const agent = createCameraAgent({
    rejectUnauthorized: verifiesTls(config),
    headersTimeoutMs: config.requestTimeoutMs,
    bodyTimeoutMs: config.requestTimeoutMs,
    maxBodyBytes: MAX_SNAPSHOT_BYTES,
  });
  const topic = `${config.mqttTopicPrefix}/events`;
  const backoffConfig = { baseMs: config.backoffBaseMs, capMs: config.backoffCapMs, jitter: DEFAULT_RECONNECT_BACKOFF.jitter };
  let backoff = initialReconnectBackoff();
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();

  /** A missing or slow snapshot never loses the read (error rule 3): the read goes on without it. */
  async function fetchSnapshot(path: string): Promise<ImageResult> {
    const timeout = AbortSignal.timeout(config.requestTimeoutMs);
    try {
      const res = await Promise.race([
        sendOnce(agent, { url: `${baseUrlOf(config)}${path}` }, MAX_SNAPSHOT_BYTES),
        new Promise<never>((_, reject) => timeout.addEventListener('abort', () => reject(new Error(`no snapshot within ${config.requestTimeoutMs} ms`)))),
      ]);
      if (res.status !== 200) return { ok: false, reason: `HTTP ${res.status}`, rateLimited: 0 };
      return { ok: true, bytes: new Uint8Array(res.body), rateLimited: 0 };
    } catch (error) {
      return { ok: false, reason: messageOf(error), rateLimited: 0 };
    }
  }

  const wanted = (cameraId: string | undefined): boolean => config.cameraIds === undefined || (cameraId !== undefined && config.cameraIds.includes(cameraId));

  async function handle(payload: Uint8Array, receivedAt: number): Promise<void> {
    const outcome = adapter.parse({ body: payload, contentType: 'application/json', origin: 'pushed' }, {});
    reportIssues(outcome, { source: config.id, status, log: deps.log });
    const fresh = outcome.detections.filter((d) => wanted(d.detection.camera.id) && !dedupe.seen(d.detection.detection_id));
    if (fresh.length === 0) return;
    const reads = correctPushed(fresh, clock, status, receivedAt);
    let retry = resetReconnectBackoff();
    for (;;) {
      try {
        await deliver(reads, { source: config.id, sink: deps.sink, status, log: deps.log, signal: stopper.signal, fetchImage: fetchSnapshot });
        for (const read of reads) dedupe.remember(read.detection.detection_id);
        return;
      } catch (error) {
        if (!isSinkRefused(error) || stopper.signal.aborted) throw error;
        const next = nextReconnectDelay(retry, backoffConfig, deps.random);
        retry = next.state;
        deps.log.warn({ camera: config.id, attempt: next.attempt, delayMs: next.delayMs, error: messageOf(error) }, 'sink refused a Frigate read; retrying it');
        await deps.sleep(next.delayMs, stopper.signal);
      }
    }
  }

  const options: IClientOptions = {
    clientId: `alpr-${config.id}-${Math.floor(deps.random() * 1e9).toString(36)}`,
    reconnectPeriod: config.backoffBaseMs,
    connectTimeout: Math.max(config.requestTimeoutMs, 5_000),
    rejectUnauthorized: verifiesTls(config),
    clean: true,
    ...(config.username !== undefined ? { username: config.username } : {}),
    ...(config.password !== undefined ? { password: config.password } : {}),
    ...(config.mqttCaFile !== undefined ? { ca: readFileSync(config.mqttCaFile) } : {}),
  };
  const client: MqttClient = mqtt.connect(config.mqttUrl ?? 'mqtt://127.0.0.1', options);

  client.on('connect', () => {
    backoff = resetReconnectBackoff();
    client.options.reconnectPeriod = config.backoffBaseMs;
    client.subscribe(topic, { qos: 0 }, (error) => {
      if (error) {
        status.offline(`subscribe ${topic}: ${messageOf(error)}`);
        deps.log.warn({ camera: config.id, topic, error: messageOf(error) }, 'Frigate events subscription refused');
        return;
      }
      status.online();
      deps.log.info({ camera: config.id, topic }, 'subscribed to Frigate events');
    });
  });
  client.on('close', () => {
    if (stopper.signal.aborted) return;
    // mqtt.js waits `reconnectPeriod` before the next attempt: set it to the backoff's next delay.
    const next = nextReconnectDelay(backoff, backoffConfig, deps.random);
    backoff = next.state;
    client.options.reconnectPeriod = next.delayMs;
    status.offline('MQTT broker connection closed');
    status.count('reconnects');
    deps.log.warn({ camera: config.id, attempt: next.attempt, delayMs: next.delayMs }, 'MQTT broker unreachable; reconnecting');
  });
  client.on('error', (error) => {
    status.noteError(`MQTT: ${messageOf(error)}`);
    deps.log.warn({ camera: config.id, error: messageOf(error) }, 'MQTT error');
  });
  client.on('message', (_topic, payload) => {
    if (pending >= MAX_PENDING) {
      status.count('errors');
      deps.log.error({ camera: config.id, pending }, 'Frigate event dropped: the buffer has refused reads for too long');
      return;
    }
    pending += 1;
    const receivedAt = deps.clock.now();
    chain = chain
      .then(() => handle(new Uint8Array(payload), receivedAt))
      .catch((error: unknown) => {
        if (!stopper.signal.aborted) deps.log.error({ camera: config.id, error: messageOf(error) }, 'Frigate event not handled');
      })
      .finally(() => {
        pending -= 1;
      });
  });

  let stopping: Promise<void> | undefined;
  return {
    id: config.id,
    status: () => status.snapshot(),
    stop() {
      stopping ??= (async () => {
        stopper.abort();
        await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));
        await chain;
        await agent.close();
      })();
      return stopping;
    },
  };
}
