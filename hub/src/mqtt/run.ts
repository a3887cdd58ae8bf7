import { randomBytes } from 'node:crypto';
import { alertPayload, alertRowsById, cameraName } from '../alerts/payload.ts';
import type { Clock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { ALERT_CHANNEL, DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Unlisten } from '../db/client.ts';
import type { Listen } from '../db/listen.ts';
import type { DbSession } from '../db/session.ts';
import { linkSigner } from '../platform/signed-links/link-signer.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';
import { detectionPayload, detectionRowsById } from '../live/detection-payload.ts';
import type { Log } from '../platform/log.ts';
import type { MqttOutConfig } from '../platform/config/mqtt-out.ts';
import { alertMessage, cameraKey, detectionMessage, discoveryMessage, lastPlateMessage, watchlistAlertMessage } from '@alpr/shared/mqtt/messages';
import type { CameraRef, TopicSettings } from '@alpr/shared/mqtt/messages';
import { connectPublisher } from '@alpr/shared/mqtt/publisher';
import type { MqttStats } from '@alpr/shared/mqtt/publisher';
import type { HubMetrics } from '../platform/hub-metrics.ts';
import { dialMqtt } from './dial.ts';

/**
 * MQTT out (docs/mqtt.md), in the hub process: it hears committed alerts and stored detection
 * batches on their NOTIFY channels (db/channels.ts), reads them once, and publishes. Nothing on
 * the ingest or alert path waits for it or knows of it. Alerts are read by id above a cursor
 * (the highest alert id published), so a lost NOTIFY is caught by the next one or by the
 * 30 s poll, and none is published twice by this process.
 */

/** A NOTIFY can be lost with its LISTEN connection; 30 s bounds how late an alert goes out then. */
const POLL_MS = 30_000;
/** One read of alerts: the raise path notifies at most 500 ids at a time. */
const PAGE = 500;

export interface MqttOutDeps {
  db: DbSession;
  listen: Listen;
  clock: Clock;
  log: Log;
  /** For the image links in alert and detection payloads. */
  hubConfig: HubConfig;
  /** The hub's /metrics: MQTT counters and gauges (docs/metrics.md) when given. */
  metrics?: HubMetrics;
}

export interface RunningMqttOut {
  stats(): MqttStats & { alertsPublished: number; detectionsPublished: number; cameras: number };
  stop(): Promise<void>;
}

export async function startMqttOut(deps: MqttOutDeps, config: MqttOutConfig): Promise<RunningMqttOut> {
  const topics: TopicSettings = { topicPrefix: config.topicPrefix, discoveryPrefix: config.discoveryPrefix };
  const publisher = connectPublisher(
    { dial: dialMqtt, log: deps.log, ...(deps.metrics ? { instruments: deps.metrics.mqtt } : {}) },
    config,
    topics,
    `alpr-hub-${randomBytes(4).toString('hex')}`,
  );
  deps.metrics?.mqtt.watch(publisher);
  const cameras = new Map<string, CameraRef>();
  const counts = { alertsPublished: 0, detectionsPublished: 0 };
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  const signer = () => linkSigner(deps.hubConfig, deps.clock.now());

  /** First sight of a camera in this process: its discovery config (retained). */
  const camera = (ref: CameraRef): void => {
    const key = cameraKey(ref);
    const known = cameras.get(key);
    if (known && known.cameraName === ref.cameraName && known.collectorName === ref.collectorName) return;
    cameras.set(key, ref);
    if (config.discovery) publisher.publish(discoveryMessage(topics, ref));
  };
  // After a reconnect the broker may have lost retained messages (no persistence): send them again.
  publisher.onConnect(() => {
    if (config.discovery) for (const ref of cameras.values()) publisher.publish(discoveryMessage(topics, ref));
  });

  const [top] = await deps.db.sql<{ id: string | null }>('SELECT max(id)::text AS id FROM alerts');
  let alertCursor = BigInt(top?.id ?? '0');

  async function publishAlerts(): Promise<void> {
    for (;;) {
      const ids = await deps.db.sql<{ id: string; collector_id: string; list_topic: boolean }>(
        `SELECT a.id::text AS id, d.collector_id::text AS collector_id, w.mqtt_publish AS list_topic
         FROM alerts a
         JOIN watchlists w ON w.id = a.watchlist_id
         JOIN detection_keys k ON k.detection_pk = a.detection_id
         JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
         WHERE a.id > $1::bigint ORDER BY a.id LIMIT ${PAGE}`,
        [alertCursor.toString()],
      );
      if (ids.length === 0) return;
      const collectors = new Map(ids.map((r) => [r.id, r.collector_id]));
      // Lists published on their own topic (docs/mqtt.md "A list's own topic"), read with the page.
      const ownTopic = new Set(ids.filter((r) => r.list_topic).map((r) => r.id));
      const rows = await alertRowsById(
        deps.db,
        ids.map((r) => r.id),
      );
      const links = signer();
      for (const row of rows) {
        const payload = alertPayload(row, links);
        const ref: CameraRef = {
          collectorId: collectors.get(String(row.id)) ?? row.site_name,
          collectorName: row.site_name,
          cameraId: row.camera_id,
          cameraName: cameraName(row.collector_config ?? {}, row.camera_id),
        };
        camera(ref);
        publisher.publish(alertMessage(topics, payload));
        if (ownTopic.has(String(row.id))) publisher.publish(watchlistAlertMessage(topics, payload.watchlist.id, payload));
        counts.alertsPublished += 1;
        // A retro-hunt's hit (historical) is a read up to 30 days old: the retained last plate
        // would move a Home Assistant sensor back in time, so only live alerts set it.
        if (row.historical === true) continue;
        // With detections on, the detection itself sets the last plate; alerts only mark it.
        publisher.publish(
          lastPlateMessage(topics, ref, {
            plate: payload.plate_number,
            capturedAt: payload.detection.captured_at,
            confidence: payload.detection.confidence,
            detectionId: payload.detection_id,
            watchlist: payload.watchlist,
          }),
        );
      }
      alertCursor = BigInt(ids[ids.length - 1]?.id ?? alertCursor.toString());
      if (ids.length < PAGE) return;
    }
  }

  async function publishDetections(payload: string): Promise<void> {
    const ids = batchIds(payload);
    if (ids.length === 0) {
      // The batch was too large for its ids to fit a NOTIFY (docs/mqtt.md says so).
      deps.log.debug({ payload: payload.slice(0, 200) }, 'mqtt: a batch without ids; its detections are not published');
      return;
    }
    const links = signer();
    for (const row of await detectionRowsById(deps.db, ids)) {
      const detection = detectionPayload(row, links);
      const ref: CameraRef = { collectorId: row.collector_id, collectorName: row.site_name, cameraId: row.camera_id, cameraName: detection.camera.name };
      camera(ref);
      publisher.publish(detectionMessage(topics, detection));
      counts.detectionsPublished += 1;
      publisher.publish(
        lastPlateMessage(topics, ref, {
          plate: detection.plate_number,
          capturedAt: detection.captured_at,
          confidence: detection.confidence,
          detectionId: detection.id,
        }),
      );
    }
  }

  /**
   * Detections off: a stored batch still makes its cameras known, so each camera seen gets its
   * discovery config (docs/mqtt.md), published once per camera by `camera`, not once per batch.
   * Only the batch's distinct cameras are read; its detections are not published.
   */
  async function discoverCameras(payload: string): Promise<void> {
    const ids = batchIds(payload);
    if (ids.length === 0) return;
    for (const row of await camerasOfBatch(deps.db, ids)) {
      camera({
        collectorId: row.collector_id,
        collectorName: row.site_name,
        cameraId: row.camera_id,
        cameraName: cameraName(row.collector_config ?? {}, row.camera_id),
      });
    }
  }

  const run = (work: () => Promise<void>): void => {
    chain = chain
      .then(() => (stopped ? undefined : work()))
      .catch((err: unknown) => deps.log.error({ err }, 'mqtt: reading what to publish failed; the next notice or poll tries again'));
  };
  const unlisten: Unlisten[] = [await deps.listen(ALERT_CHANNEL, () => run(publishAlerts))];
  if (config.detections) unlisten.push(await deps.listen(DETECTIONS_CHANNEL, (payload) => run(() => publishDetections(payload))));
  else if (config.discovery) unlisten.push(await deps.listen(DETECTIONS_CHANNEL, (payload) => run(() => discoverCameras(payload))));
  const poll = setInterval(() => run(publishAlerts), POLL_MS);
  poll.unref();
  deps.log.info({ url: config.url, prefix: config.topicPrefix, detections: config.detections, discovery: config.discovery }, 'mqtt out started');

  return {
    stats: () => ({ ...publisher.stats(), ...counts, cameras: cameras.size }),
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const u of unlisten) await u().catch(() => undefined);
      await chain;
      await publisher.close();
    },
  };
}

/** The detection ids of a DETECTIONS_CHANNEL payload; none when the batch was too large to list them. */
function batchIds(payload: string): string[] {
  try {
    const parsed = JSON.parse(payload) as { ids?: unknown };
    return Array.isArray(parsed.ids) ? parsed.ids.map(String).filter((id) => /^\d{1,19}$/.test(id)) : [];
  } catch {
    return [];
  }
}

/** The distinct cameras of these detections, with what a discovery config names them by. */
function camerasOfBatch(db: DbSession, ids: readonly string[]) {
  return db.sql<{ collector_id: string; site_name: string; collector_config: Record<string, unknown> | null; camera_id: string }>(
    `SELECT b.collector_id::text AS collector_id, c.site_name, ${configWithCameraNames('c')} AS collector_config, b.camera_id
     FROM (SELECT DISTINCT d.collector_id, d.camera_id
           FROM detection_keys k
           JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
           WHERE k.detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))) b
     JOIN collectors c ON c.id = b.collector_id`,
    [JSON.stringify(ids)],
  );
}
