import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isFingerprint, normalizeFingerprint } from '@alpr/shared/mqtt/fingerprint';
import type { MqttConnectionSettings } from '@alpr/shared/mqtt/publisher';

/**
 * MQTT out (docs/mqtt.md): where the hub publishes alerts, optionally every detection, a
 * retained last plate per camera and Home Assistant discovery. Off unless HUB_MQTT_URL is set.
 * Read from the environment by config.ts; files named here (password, CA) are read once at start.
 */

const onOff = z.enum(['on', 'off']);

export const mqttEnvSchema = z
  .object({
    /** `mqtt://host[:1883]` or `mqtts://host[:8883]`. */
    HUB_MQTT_URL: z
      .string()
      .regex(/^mqtts?:\/\/[^\s/]+\/?$/, 'HUB_MQTT_URL: mqtt://host[:port] or mqtts://host[:port]')
      .optional(),
    HUB_MQTT_USERNAME: z.string().min(1).max(200).optional(),
    HUB_MQTT_PASSWORD: z.string().min(1).max(500).optional(),
    /** A file holding the password (a container secret); wins over HUB_MQTT_PASSWORD. */
    HUB_MQTT_PASSWORD_FILE: z.string().min(1).max(500).optional(),
    /** mqtts: PEM of the CA that signed the broker's certificate (a self-signed broker: its certificate). */
    HUB_MQTT_CA_FILE: z.string().min(1).max(500).optional(),
    /** mqtts: `off` accepts any certificate (a test broker only; docs/mqtt.md says why not). */
    HUB_MQTT_TLS_VERIFY: onOff.default('on'),
    /** mqtts: the SHA-256 fingerprint of the broker's own certificate (hex, colons allowed); only that certificate is accepted. */
    HUB_MQTT_TLS_FINGERPRINT: z.string().refine(isFingerprint, 'HUB_MQTT_TLS_FINGERPRINT: 64 hex digits (SHA-256), colons allowed').optional(),
    HUB_MQTT_TOPIC_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'HUB_MQTT_TOPIC_PREFIX: letters, digits, _ -, parts joined by /')
      .max(100)
      .default('alpr'),
    /** Every detection on `<prefix>/detections` and the last plate per camera from every read. Off: alerts only. */
    HUB_MQTT_DETECTIONS: onOff.default('off'),
    HUB_MQTT_DISCOVERY: onOff.default('on'),
    HUB_MQTT_DISCOVERY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .max(100)
      .default('homeassistant'),
    /** Messages held while the broker is away; beyond it the oldest are dropped (counted, logged). */
    HUB_MQTT_QUEUE_MAX: z.coerce.number().int().min(1).max(100_000).default(1_000),
  })
  // A pin is a stricter check than a CA, never a looser one: `off` beside it would say "accept
  // anything" and "accept only this" at once, and a CA file would be a second, unused trust.
  .refine((e) => !(e.HUB_MQTT_TLS_FINGERPRINT && e.HUB_MQTT_TLS_VERIFY === 'off'), {
    message: 'HUB_MQTT_TLS_FINGERPRINT with HUB_MQTT_TLS_VERIFY=off contradicts itself: the pin is the verification; drop one',
    path: ['HUB_MQTT_TLS_FINGERPRINT'],
  })
  .refine((e) => !(e.HUB_MQTT_TLS_FINGERPRINT && e.HUB_MQTT_CA_FILE), {
    message: 'HUB_MQTT_TLS_FINGERPRINT and HUB_MQTT_CA_FILE: give one (the pin for a self-signed broker, the CA file otherwise)',
    path: ['HUB_MQTT_TLS_FINGERPRINT'],
  })
  .refine((e) => !(e.HUB_MQTT_TLS_FINGERPRINT && e.HUB_MQTT_URL?.startsWith('mqtt://')), {
    message: 'HUB_MQTT_TLS_FINGERPRINT needs an mqtts:// HUB_MQTT_URL',
    path: ['HUB_MQTT_TLS_FINGERPRINT'],
  });

export interface MqttOutConfig extends MqttConnectionSettings {
  topicPrefix: string;
  detections: boolean;
  discovery: boolean;
  discoveryPrefix: string;
}

/** The MQTT part of the hub configuration, or undefined when MQTT out is off. Throws a ZodError on bad values. */
export function loadMqttOutConfig(env: Readonly<Record<string, string | undefined>>): MqttOutConfig | undefined {
  const e = mqttEnvSchema.parse(env);
  if (!e.HUB_MQTT_URL) return undefined;
  const password = e.HUB_MQTT_PASSWORD_FILE ? readFileSync(e.HUB_MQTT_PASSWORD_FILE, 'utf8').replace(/\r?\n$/, '') : e.HUB_MQTT_PASSWORD;
  return {
    url: e.HUB_MQTT_URL,
    ...(e.HUB_MQTT_USERNAME ? { username: e.HUB_MQTT_USERNAME } : {}),
    ...(password ? { password } : {}),
    ...(e.HUB_MQTT_CA_FILE ? { ca: readFileSync(e.HUB_MQTT_CA_FILE, 'utf8') } : {}),
    verifyTls: e.HUB_MQTT_TLS_VERIFY === 'on',
    ...(e.HUB_MQTT_TLS_FINGERPRINT ? { tlsFingerprint: normalizeFingerprint(e.HUB_MQTT_TLS_FINGERPRINT) } : {}),
    topicPrefix: e.HUB_MQTT_TOPIC_PREFIX,
    detections: e.HUB_MQTT_DETECTIONS === 'on',
    discovery: e.HUB_MQTT_DISCOVERY === 'on',
    discoveryPrefix: e.HUB_MQTT_DISCOVERY_PREFIX,
    queueMax: e.HUB_MQTT_QUEUE_MAX,
    backoffBaseMs: 1_000,
    backoffCapMs: 60_000,
  };
}
