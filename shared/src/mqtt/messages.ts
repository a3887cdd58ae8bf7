/**
 * What the hub and the appliance publish over MQTT (docs/mqtt.md), pure: topics, payloads, retain and QoS.
 * Home Assistant MQTT discovery: a retained config on `<discovery>/sensor/<object id>/config`
 * makes each camera a sensor whose state is its last plate, with the hub's availability topic.
 */

/** What a message is, for the per-kind counters in /metrics (docs/metrics.md). */
export const MESSAGE_KINDS = ['alert', 'detection', 'last_plate', 'discovery', 'status'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export interface OutgoingMessage {
  kind: MessageKind;
  topic: string;
  payload: string;
  qos: 0 | 1;
  retain: boolean;
}

export interface CameraRef {
  collectorId: string;
  collectorName: string;
  cameraId: string;
  cameraName: string;
}

export interface PlateSeen {
  plate: string;
  capturedAt: string;
  confidence: number;
  detectionId: string;
  /** The watchlist it matched, when the message comes from an alert. */
  watchlist?: { id: string; name: string; priority: string };
}

export interface TopicSettings {
  topicPrefix: string;
  discoveryPrefix: string;
}

/** Topic-safe and Home Assistant object-id-safe: `[A-Za-z0-9_-]`, 100 characters. */
export const topicKey = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);

export const cameraKey = (camera: CameraRef): string => topicKey(`${camera.collectorId}_${camera.cameraId}`);

export const availabilityTopic = (s: TopicSettings): string => `${s.topicPrefix}/status`;
export const alertsTopic = (s: TopicSettings): string => `${s.topicPrefix}/alerts`;
export const detectionsTopic = (s: TopicSettings): string => `${s.topicPrefix}/detections`;
export const lastPlateTopic = (s: TopicSettings, camera: CameraRef): string => `${s.topicPrefix}/cameras/${cameraKey(camera)}/last_plate`;
export const discoveryTopic = (s: TopicSettings, camera: CameraRef): string => `${s.discoveryPrefix}/sensor/alpr_${cameraKey(camera)}/config`;

/** Alerts: QoS 1 (at least once to the broker), never retained: each is an event. */
export const alertMessage = (s: TopicSettings, alert: unknown): OutgoingMessage => ({
  kind: 'alert',
  topic: alertsTopic(s),
  payload: JSON.stringify(alert),
  qos: 1,
  retain: false,
});

/** A list's own topic (docs/mqtt.md "A list's own topic"): its alerts only, for lists that ask for it. */
export const watchlistAlertsTopic = (s: TopicSettings, watchlistId: string): string => `${s.topicPrefix}/watchlists/${topicKey(watchlistId)}/alerts`;

/** The same alert as on `<prefix>/alerts`, on its list's own topic: QoS 1, never retained. */
export const watchlistAlertMessage = (s: TopicSettings, watchlistId: string, alert: unknown): OutgoingMessage => ({
  kind: 'alert',
  topic: watchlistAlertsTopic(s, watchlistId),
  payload: JSON.stringify(alert),
  qos: 1,
  retain: false,
});

export const detectionMessage = (s: TopicSettings, detection: unknown): OutgoingMessage => ({
  kind: 'detection',
  topic: detectionsTopic(s),
  payload: JSON.stringify(detection),
  qos: 1,
  retain: false,
});

/** Retained: a subscriber (Home Assistant after a restart) gets the camera's last plate at once. */
export function lastPlateMessage(s: TopicSettings, camera: CameraRef, seen: PlateSeen): OutgoingMessage {
  return {
    kind: 'last_plate',
    topic: lastPlateTopic(s, camera),
    payload: JSON.stringify({
      plate: seen.plate,
      captured_at: seen.capturedAt,
      confidence: seen.confidence,
      detection_id: seen.detectionId,
      camera: { id: camera.cameraId, name: camera.cameraName },
      collector: { id: camera.collectorId, name: camera.collectorName },
      alert: seen.watchlist !== undefined,
      ...(seen.watchlist ? { watchlist: seen.watchlist } : {}),
    }),
    qos: 1,
    retain: true,
  };
}

/** The discovery config of one camera's sensor (Home Assistant "MQTT Discovery", sensor platform). */
export function discoveryMessage(s: TopicSettings, camera: CameraRef): OutgoingMessage {
  const key = cameraKey(camera);
  return {
    kind: 'discovery',
    topic: discoveryTopic(s, camera),
    payload: JSON.stringify({
      name: `${camera.cameraName} last plate`,
      unique_id: `alpr_${key}`,
      state_topic: lastPlateTopic(s, camera),
      value_template: '{{ value_json.plate }}',
      json_attributes_topic: lastPlateTopic(s, camera),
      availability_topic: availabilityTopic(s),
      payload_available: 'online',
      payload_not_available: 'offline',
      icon: 'mdi:car',
      device: {
        identifiers: [`alpr_${topicKey(camera.collectorId)}`],
        name: camera.collectorName,
        manufacturer: 'alpr-platform',
        model: 'collector',
      },
    }),
    qos: 1,
    retain: true,
  };
}

/** Birth and last will on the availability topic, both retained. */
export const onlineMessage = (s: TopicSettings): OutgoingMessage => ({ kind: 'status', topic: availabilityTopic(s), payload: 'online', qos: 1, retain: true });
export const offlineMessage = (s: TopicSettings): OutgoingMessage => ({
  kind: 'status',
  topic: availabilityTopic(s),
  payload: 'offline',
  qos: 1,
  retain: true,
});

/** Reconnect delay: base doubling to cap (1 s, 2 s ... 60 s). */
export const reconnectDelayMs = (attempt: number, baseMs: number, capMs: number): number => Math.min(capMs, baseMs * 2 ** Math.min(Math.max(0, attempt), 30));

/**
 * What waits while the broker is away (pure). Retained messages keep only the newest per topic
 * (a camera's last plate, its discovery config: older ones are stale anyway); events (alerts,
 * detections) queue in order up to `max`, and beyond it the oldest event is dropped.
 */
export interface OfflineQueue {
  push(message: OutgoingMessage): { dropped: number };
  drain(): OutgoingMessage[];
  readonly size: number;
}

export function createOfflineQueue(max: number): OfflineQueue {
  let events: OutgoingMessage[] = [];
  const retained = new Map<string, OutgoingMessage>();
  return {
    push(message) {
      if (message.retain) {
        retained.delete(message.topic);
        retained.set(message.topic, message);
        return { dropped: 0 };
      }
      events.push(message);
      let dropped = 0;
      while (events.length > max) {
        events.shift();
        dropped += 1;
      }
      return { dropped };
    },
    drain() {
      const out = [...retained.values(), ...events];
      retained.clear();
      events = [];
      return out;
    },
    get size() {
      return events.length + retained.size;
    },
  };
}
