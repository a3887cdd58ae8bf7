import type { Duplex } from 'node:stream';
import { FingerprintMismatchError, pinnedTlsStream } from './fingerprint.ts';
import { createOfflineQueue, offlineMessage, onlineMessage, reconnectDelayMs } from './messages.ts';
import type { MessageKind, OutgoingMessage, TopicSettings } from './messages.ts';

/**
 * An MQTT connection that publishes for the hub or the appliance (docs/mqtt.md). `publish`
 * never throws and never waits for the broker: nothing upstream (ingest, alerting, a camera's
 * read) depends on it. Connected, a message goes out at once (QoS 1 is acknowledged by the
 * broker; a failure is counted and logged, the message is not retried). Disconnected, it waits
 * in the offline queue (retained ones: newest per topic; events: up to `queueMax`, the oldest
 * dropped beyond it, counted) and goes out on reconnect, in order. The last will marks the
 * publisher `offline` on the availability topic if the connection dies.
 *
 * The mqtt package is handed in (`dial`): each workspace declares its own copy.
 */

export interface MqttConnectionSettings {
  url: string;
  username?: string;
  password?: string;
  ca?: string;
  verifyTls: boolean;
  /** SHA-256 of the broker's leaf certificate (fingerprint.ts); with it, only that certificate is accepted. */
  tlsFingerprint?: string;
  queueMax: number;
  /** Reconnect backoff: base doubling to cap (1 s to 60 s in production). */
  backoffBaseMs: number;
  backoffCapMs: number;
}

/** What the publisher needs of an mqtt.js client (MqttClient satisfies it). */
export interface MqttClientLike {
  readonly connected: boolean;
  options: { reconnectPeriod?: number };
  on(event: 'connect' | 'close' | 'reconnect', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  publish(topic: string, payload: string, options: { qos: 0 | 1; retain: boolean }, callback: (error?: Error) => void): unknown;
  publishAsync(topic: string, payload: string, options: { qos: 0 | 1; retain: boolean }): Promise<unknown>;
  endAsync(): Promise<void>;
}

export interface DialOptions {
  clientId: string;
  clean: boolean;
  reconnectPeriod: number;
  connectTimeout: number;
  rejectUnauthorized: boolean;
  queueQoSZero: boolean;
  will: { topic: string; payload: Buffer; qos: 0 | 1; retain: boolean };
  username?: string;
  password?: string;
  ca?: string;
}

/** `mqtt.connect(url, options)`, or with `stream`, `new MqttClient(stream, options)`. */
export type MqttDial = (url: string, options: DialOptions, stream?: () => Duplex) => MqttClientLike;

/** Counters the publisher moves (docs/metrics.md); each package binds them to its registry. */
export interface MqttInstruments {
  published(kind: MessageKind): void;
  dropped(count: number): void;
  attempt(): void;
  failure(): void;
}

export interface MqttLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface MqttStats {
  connected: boolean;
  published: number;
  failed: number;
  droppedWhileOffline: number;
  queued: number;
  reconnects: number;
  connectAttempts: number;
  connectFailures: number;
}

export interface MqttPublisher {
  publish(message: OutgoingMessage): void;
  /** Called on every (re)connection, after the birth message: republish what must be retained. */
  onConnect(listener: () => void): void;
  stats(): MqttStats;
  close(): Promise<void>;
}

export interface PublisherDeps {
  dial: MqttDial;
  log: MqttLog;
  instruments?: MqttInstruments;
}

/** `mqtts://host:port` → host and port, for the pinned stream (8883 when the URL gives none). */
function tlsTarget(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : 8883 };
}

export function connectPublisher(deps: PublisherDeps, config: MqttConnectionSettings, topics: TopicSettings, clientId: string): MqttPublisher {
  const { log, instruments } = deps;
  const queue = createOfflineQueue(config.queueMax);
  const stats = { published: 0, failed: 0, droppedWhileOffline: 0, reconnects: 0, connectAttempts: 1, connectFailures: 0 };
  instruments?.attempt();
  const listeners: Array<() => void> = [];
  let attempt = 0;
  let closing = false;
  /** Whether the current attempt reached CONNACK: an attempt closed without it is a failure. */
  let reached = false;
  const will = offlineMessage(topics);
  const options: DialOptions = {
    clientId,
    clean: true,
    reconnectPeriod: config.backoffBaseMs,
    connectTimeout: 10_000,
    rejectUnauthorized: config.verifyTls,
    // Our own queue decides what waits while offline; mqtt.js's would grow without bound.
    queueQoSZero: false,
    will: { topic: will.topic, payload: Buffer.from(will.payload), qos: will.qos, retain: will.retain },
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    ...(config.ca ? { ca: config.ca } : {}),
  };
  const pin = config.tlsFingerprint;
  const target = pin ? tlsTarget(config.url) : undefined;
  const client =
    pin && target ? deps.dial(config.url, options, () => pinnedTlsStream({ ...target, servername: target.host }, pin)) : deps.dial(config.url, options);

  const send = (message: OutgoingMessage): void => {
    client.publish(message.topic, message.payload, { qos: message.qos, retain: message.retain }, (error) => {
      if (error) {
        stats.failed += 1;
        log.warn({ topic: message.topic, err: error.message }, 'mqtt: publish failed');
      } else {
        stats.published += 1;
        instruments?.published(message.kind);
      }
    });
  };

  client.on('connect', () => {
    if (attempt > 0) log.info({ after: attempt }, 'mqtt: connected again');
    else log.info({ url: config.url }, 'mqtt: connected');
    attempt = 0;
    reached = true;
    client.options.reconnectPeriod = config.backoffBaseMs;
    send(onlineMessage(topics));
    for (const listener of listeners) listener();
    for (const message of queue.drain()) send(message);
  });
  client.on('reconnect', () => {
    stats.connectAttempts += 1;
    instruments?.attempt();
  });
  client.on('close', () => {
    if (!reached) {
      stats.connectFailures += 1;
      instruments?.failure();
    }
    reached = false;
    if (closing) return;
    const delayMs = reconnectDelayMs(attempt, config.backoffBaseMs, config.backoffCapMs);
    attempt += 1;
    stats.reconnects += 1;
    // mqtt.js waits `reconnectPeriod` before its next attempt: the backoff's delay.
    client.options.reconnectPeriod = delayMs;
    log.warn({ attempt, delayMs }, 'mqtt: broker connection lost; reconnecting');
  });
  client.on('error', (error) => {
    if (error instanceof FingerprintMismatchError) log.error({ expected: error.expected, got: error.got }, `mqtt: ${error.message}`);
    else log.warn({ err: error.message }, 'mqtt: error');
  });

  return {
    publish(message) {
      if (client.connected) {
        send(message);
        return;
      }
      const { dropped } = queue.push(message);
      if (dropped > 0) {
        stats.droppedWhileOffline += dropped;
        instruments?.dropped(dropped);
        log.warn({ dropped, max: config.queueMax }, 'mqtt: broker away too long; oldest queued messages dropped');
      }
    },
    onConnect: (listener) => void listeners.push(listener),
    stats: () => ({ ...stats, connected: client.connected, queued: queue.size }),
    async close() {
      closing = true;
      // A clean stop says `offline` itself (the will is only sent for a lost connection).
      if (client.connected) await client.publishAsync(will.topic, will.payload, { qos: will.qos, retain: true }).catch(() => undefined);
      await client.endAsync();
    },
  };
}
