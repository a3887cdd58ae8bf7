import mqtt from 'mqtt';
import type { MqttDial } from '@alpr/shared/mqtt/publisher';

/** The appliance's mqtt.js for the shared publisher; a pinned broker gets the publisher's own TLS stream. */
export const dialMqtt: MqttDial = (url, options, stream) => (stream ? new mqtt.MqttClient(() => stream(), { ...options }) : mqtt.connect(url, options));
