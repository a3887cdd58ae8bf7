import mqtt from 'mqtt';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Log } from '../log.ts';
import type { MqttOutConfig } from './config.ts';
import { createOfflineQueue, offlineMessage, onlineMessage, reconnectDelayMs } from './messages.ts';
import type { OutgoingMessage, TopicSettings } from './messages.ts';

/**
 * The hub's MQTT connection (docs/mqtt.md). `publish` never throws and never waits for the
 * broker: ingest and alerting never depend on it. Connected, a message goes out at once (QoS 1
 * is acknowledged by the broker; a failure is counted and logged, the message is not retried).
 * Disconnected, it waits in the offline queue (retained ones: newest per topic; events: up to
 * HUB_MQTT_QUEUE_MAX, the oldest dropped beyond it, counted) and goes out on reconnect, in order.
 * The last will marks the hub `offline` on the availability topic if the connection dies.
 */

export interface MqttStats {
  connected: boolean;
  published: number;
  failed: number;
  droppedWhileOffline: number;
  queued: number;
  reconnects: number;
}

export interface MqttPublisher {
  publish(message: OutgoingMessage): void;
  /** Called on every (re)connection, after the birth message: republish what must be retained. */
  onConnect(listener: () => void): void;
  stats(): MqttStats;
  close(): Promise<void>;
}

export function connectPublisher(config: MqttOutConfig, topics: TopicSettings, log: Log, clientId: string): MqttPublisher {
  const queue = createOfflineQueue(config.queueMax);
  const stats = { published: 0, failed: 0, droppedWhileOffline: 0, reconnects: 0 };
  const listeners: Array<() => void> = [];
  let attempt = 0;
  let closing = false;
  const will = offlineMessage(topics);
  const options: IClientOptions = {
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
  const client: MqttClient = mqtt.connect(config.url, options);

  const send = (message: OutgoingMessage): void => {
    client.publish(message.topic, message.payload, { qos: message.qos, retain: message.retain }, (error) => {
      if (error) {
        stats.failed += 1;
        log.warn({ topic: message.topic, err: error.message }, 'mqtt: publish failed');
      } else stats.published += 1;
    });
  };

  client.on('connect', () => {
    if (attempt > 0) log.info({ after: attempt }, 'mqtt: connected again');
    else log.info({ url: config.url }, 'mqtt: connected');
    attempt = 0;
    client.options.reconnectPeriod = config.backoffBaseMs;
    send(onlineMessage(topics));
    for (const listener of listeners) listener();
    for (const message of queue.drain()) send(message);
  });
  client.on('close', () => {
    if (closing) return;
    const delayMs = reconnectDelayMs(attempt, config.backoffBaseMs, config.backoffCapMs);
    attempt += 1;
    stats.reconnects += 1;
    // mqtt.js waits `reconnectPeriod` before its next attempt: the backoff's delay.
    client.options.reconnectPeriod = delayMs;
    log.warn({ attempt, delayMs }, 'mqtt: broker connection lost; reconnecting');
  });
  client.on('error', (error) => log.warn({ err: error.message }, 'mqtt: error'));

  return {
    publish(message) {
      if (client.connected) {
        send(message);
        return;
      }
      const { dropped } = queue.push(message);
      if (dropped > 0) {
        stats.droppedWhileOffline += dropped;
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
