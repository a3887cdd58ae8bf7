import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { MESSAGE_KINDS } from './messages.ts';
import type { MqttInstruments } from './publisher.ts';

/**
 * MQTT out in /metrics (docs/metrics.md, docs/mqtt.md), the same series on the hub
 * (`alpr_hub_mqtt_*`) and the appliance (`alpr_appliance_mqtt_*`). Registered on every process,
 * MQTT out on or off: a dashboard or an alert rule finds the same series everywhere, all 0 with
 * `<prefix>mqtt_enabled 0` when it is off (no HUB_MQTT_URL, no `[mqtt]` section). Counters move
 * from the publisher; the connected flag and the queue depth are read at scrape time from the
 * running publisher.
 */
export interface MqttMetrics extends MqttInstruments {
  /** The running publisher, read at each scrape (the hub's mqtt/run.ts or the appliance's pipeline hands it in; undefined once it stops). */
  watch(source: { stats(): { connected: boolean; queued: number } } | undefined): void;
}

export function createMqttMetrics(registry: Registry, prefix: string): MqttMetrics {
  let source: { stats(): { connected: boolean; queued: number } } | undefined;
  const published = new Counter({
    name: `${prefix}mqtt_messages_published_total`,
    help: 'MQTT messages the broker acknowledged, by kind (alert, detection, last_plate, discovery, status).',
    labelNames: ['kind'],
    registers: [registry],
  });
  // Every kind present from the start at 0: rate() over a series that appears late misses its first increase.
  for (const kind of MESSAGE_KINDS) published.inc({ kind }, 0);
  const dropped = new Counter({
    name: `${prefix}mqtt_messages_dropped_total`,
    help: 'MQTT event messages dropped from the offline queue (oldest first) while the broker was away and the queue was full.',
    registers: [registry],
  });
  const attempts = new Counter({
    name: `${prefix}mqtt_connection_attempts_total`,
    help: 'Connection attempts to the MQTT broker, the first one and every reconnect.',
    registers: [registry],
  });
  const failures = new Counter({
    name: `${prefix}mqtt_connection_failures_total`,
    help: 'Connection attempts that closed before the broker accepted them (refused login, TLS or pin mismatch, broker down).',
    registers: [registry],
  });
  new Gauge({
    name: `${prefix}mqtt_enabled`,
    help: '1 when MQTT out is configured in this process.',
    registers: [registry],
    collect() {
      this.set(source ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}mqtt_connected`,
    help: '1 while connected to the MQTT broker.',
    registers: [registry],
    collect() {
      this.set(source?.stats().connected ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}mqtt_queue_depth`,
    help: 'Messages waiting in the MQTT offline queue for the broker to come back.',
    registers: [registry],
    collect() {
      this.set(source?.stats().queued ?? 0);
    },
  });
  return {
    published: (kind) => published.inc({ kind }),
    dropped: (count) => dropped.inc(count),
    attempt: () => attempts.inc(),
    failure: () => failures.inc(),
    watch: (s) => {
      source = s;
    },
  };
}
