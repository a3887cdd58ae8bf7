import { randomBytes } from 'node:crypto';
import type { Detection } from '@alpr/shared/detection/schema';
import { cameraKey, detectionMessage, discoveryMessage, lastPlateMessage } from '@alpr/shared/mqtt/messages';
import type { CameraRef } from '@alpr/shared/mqtt/messages';
import { connectPublisher } from '@alpr/shared/mqtt/publisher';
import type { MqttDial, MqttInstruments, MqttLog, MqttStats } from '@alpr/shared/mqtt/publisher';
import type { MqttMetrics } from '@alpr/shared/mqtt/metrics';
import { mqttSettingsFrom } from './config.ts';
import type { ApplianceMqttSection, ApplianceMqttSettings } from './config.ts';
import { dialMqtt } from './dial.ts';

/**
 * The appliance's MQTT out (docs/mqtt.md "From the appliance"): every detection the buffer
 * committed goes to `<prefix>/detections`, sets its camera's retained last plate, and each
 * camera gets a retained Home Assistant discovery config. The appliance matches no
 * watchlists, so there are no alerts here. `detection` is called after the commit, returns at
 * once and never throws: the camera path and the buffer never wait for the broker (the
 * shared publisher queues up to `queue_max` while it is away).
 */

export interface ApplianceMqttOut {
  detection(item: { detection: Detection; source: string }): void;
  stats(): MqttStats & { detectionsPublished: number };
  stop(): Promise<void>;
}

export interface ApplianceMqttDeps {
  log: MqttLog;
  instruments?: MqttInstruments;
  /** Tests may hand in another mqtt.js; the default is the appliance's. */
  dial?: MqttDial;
}

/** The appliance's detection JSON: the hub's live `detection` fields it knows (no image links: images stay on the device). */
export function applianceDetectionPayload(detection: Detection, camera: CameraRef): Record<string, unknown> {
  return {
    id: detection.detection_id,
    plate_number: detection.plate.text,
    captured_at: detection.timestamp,
    confidence: detection.plate.confidence,
    collector: { id: camera.collectorId, name: camera.collectorName },
    camera: { id: camera.cameraId, name: camera.cameraName },
    ...(detection.plate.region ? { region: detection.plate.region } : {}),
    ...(detection.vehicle?.direction ? { direction: detection.vehicle.direction } : {}),
  };
}

export function startApplianceMqttOut(
  deps: ApplianceMqttDeps,
  settings: ApplianceMqttSettings,
  /** Configured cameras, id to display name: each gets its discovery config at once. */
  cameraNames: ReadonlyMap<string, string>,
): ApplianceMqttOut {
  const publisher = connectPublisher(
    { dial: deps.dial ?? dialMqtt, log: deps.log, ...(deps.instruments ? { instruments: deps.instruments } : {}) },
    settings,
    settings,
    `alpr-appliance-${randomBytes(4).toString('hex')}`,
  );
  const cameras = new Map<string, CameraRef>();
  let detectionsPublished = 0;
  const refFor = (cameraId: string): CameraRef => ({
    collectorId: settings.deviceId,
    collectorName: settings.deviceName,
    cameraId,
    cameraName: cameraNames.get(cameraId) ?? cameraId,
  });
  const camera = (ref: CameraRef): void => {
    const key = cameraKey(ref);
    if (cameras.has(key)) return;
    cameras.set(key, ref);
    // Offline, the next connection sends every known camera's config (below): not twice.
    if (settings.discovery && publisher.stats().connected) publisher.publish(discoveryMessage(settings, ref));
  };
  // A broker without persistence forgets retained messages when it restarts: send discovery again.
  publisher.onConnect(() => {
    if (settings.discovery) for (const ref of cameras.values()) publisher.publish(discoveryMessage(settings, ref));
  });
  for (const id of cameraNames.keys()) camera(refFor(id));

  return {
    detection(item) {
      try {
        const ref = refFor(item.source);
        camera(ref);
        publisher.publish(detectionMessage(settings, applianceDetectionPayload(item.detection, ref)));
        publisher.publish(
          lastPlateMessage(settings, ref, {
            plate: item.detection.plate.text,
            capturedAt: item.detection.timestamp,
            confidence: item.detection.plate.confidence,
            detectionId: item.detection.detection_id,
          }),
        );
        detectionsPublished += 1;
      } catch (error) {
        // Never the camera path's problem: the detection is committed already.
        deps.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'mqtt: a detection could not be published');
      }
    },
    stats: () => ({ ...publisher.stats(), detectionsPublished }),
    stop: () => publisher.close(),
  };
}

/**
 * From the configuration, for the pipeline: undefined without an `[mqtt]` section, or when its
 * files cannot be read (logged; the cameras and the uplink run on without MQTT).
 */
export function mqttOutFor(
  section: ApplianceMqttSection | undefined,
  cameras: ReadonlyArray<{ id: string; name?: string | undefined }>,
  deps: ApplianceMqttDeps & { metrics?: MqttMetrics },
): ApplianceMqttOut | undefined {
  if (!section) return undefined;
  let settings: ApplianceMqttSettings;
  try {
    settings = mqttSettingsFrom(section);
  } catch (error) {
    deps.log.error(
      { err: error instanceof Error ? error.message : String(error) },
      'mqtt: the [mqtt] section names a file that cannot be read; MQTT out is off',
    );
    return undefined;
  }
  const out = startApplianceMqttOut(
    { ...deps, ...(deps.metrics ? { instruments: deps.metrics } : {}) },
    settings,
    new Map(cameras.map((c) => [c.id, c.name ?? c.id])),
  );
  deps.metrics?.watch(out);
  deps.log.info({ url: settings.url, prefix: settings.topicPrefix, discovery: settings.discovery }, 'mqtt out started');
  return {
    ...out,
    stop: async () => {
      deps.metrics?.watch(undefined);
      await out.stop();
    },
  };
}
