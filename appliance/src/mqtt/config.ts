import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { isFingerprint, normalizeFingerprint } from '@alpr/shared/mqtt/fingerprint';
import { topicKey } from '@alpr/shared/mqtt/messages';
import type { TopicSettings } from '@alpr/shared/mqtt/messages';
import type { MqttConnectionSettings } from '@alpr/shared/mqtt/publisher';

/**
 * The appliance's `[mqtt]` section (docs/mqtt.md "From the appliance"): a LAN-only site publishes
 * every detection the buffer commits, a retained last plate per camera and Home Assistant
 * discovery to a broker on its LAN. Off without the section. The same TLS and login rules as
 * the hub's HUB_MQTT_* (hub/src/platform/config/mqtt-out.ts).
 */
export const applianceMqttSchema = z
  .object({
    /** `mqtt://host[:1883]` or `mqtts://host[:8883]`. */
    url: z.string().regex(/^mqtts?:\/\/[^\s/]+\/?$/, 'mqtt.url: mqtt://host[:port] or mqtts://host[:port]'),
    username: z.string().min(1).max(200).optional(),
    password: z.string().min(1).max(500).optional(),
    /** A file holding the password; wins over `password`. */
    password_file: z.string().min(1).max(500).optional(),
    /** mqtts: PEM of the CA that signed the broker's certificate. */
    ca_file: z.string().min(1).max(500).optional(),
    /** mqtts: false accepts any certificate (a lab broker only). */
    tls_verify: z.boolean().default(true),
    /** mqtts: SHA-256 of the broker's own certificate (64 hex digits, colons allowed); only it is accepted. */
    tls_fingerprint: z.string().refine(isFingerprint, 'mqtt.tls_fingerprint: 64 hex digits (SHA-256), colons allowed').optional(),
    topic_prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'mqtt.topic_prefix: letters, digits, _ -, parts joined by /')
      .max(100)
      .default('alpr'),
    discovery: z.boolean().default(true),
    discovery_prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .max(100)
      .default('homeassistant'),
    /** The device in Home Assistant and the first part of each camera's topic key; default: the host name. */
    device_name: z.string().min(1).max(100).optional(),
    /** Detections held while the broker is away; beyond it the oldest are dropped (counted). */
    queue_max: z.number().int().min(1).max(100_000).default(1_000),
  })
  .strict()
  .refine((m) => !(m.tls_fingerprint && !m.tls_verify), {
    message: 'mqtt.tls_fingerprint with tls_verify = false contradicts itself: the pin is the verification; drop one',
    path: ['tls_fingerprint'],
  })
  .refine((m) => !(m.tls_fingerprint && m.ca_file), { message: 'mqtt.tls_fingerprint and mqtt.ca_file: give one', path: ['tls_fingerprint'] })
  .refine((m) => !(m.tls_fingerprint && m.url.startsWith('mqtt://')), { message: 'mqtt.tls_fingerprint needs an mqtts:// url', path: ['tls_fingerprint'] });
export type ApplianceMqttSection = z.infer<typeof applianceMqttSchema>;

export interface ApplianceMqttSettings extends MqttConnectionSettings, TopicSettings {
  discovery: boolean;
  /** Topic-safe device key and its display name. */
  deviceId: string;
  deviceName: string;
}

/** Reads the files the section names (once, at pipeline start). Throws on an unreadable file. */
export function mqttSettingsFrom(section: ApplianceMqttSection, host: string = hostname()): ApplianceMqttSettings {
  const password = section.password_file ? readFileSync(section.password_file, 'utf8').replace(/\r?\n$/, '') : section.password;
  const deviceName = section.device_name ?? host;
  return {
    url: section.url,
    ...(section.username ? { username: section.username } : {}),
    ...(password ? { password } : {}),
    ...(section.ca_file ? { ca: readFileSync(section.ca_file, 'utf8') } : {}),
    verifyTls: section.tls_verify,
    ...(section.tls_fingerprint ? { tlsFingerprint: normalizeFingerprint(section.tls_fingerprint) } : {}),
    topicPrefix: section.topic_prefix,
    discoveryPrefix: section.discovery_prefix,
    discovery: section.discovery,
    deviceId: topicKey(deviceName),
    deviceName,
    queueMax: section.queue_max,
    // 1 s doubling to 60 s, like the hub.
    backoffBaseMs: 1_000,
    backoffCapMs: 60_000,
  };
}
