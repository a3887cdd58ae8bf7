import { createServer } from 'node:http';
import mqtt from 'mqtt';
import type { IClientOptions, MqttClient } from 'mqtt';
import { isMain, parseCliArgs, closeOnSignals } from './cli-args.ts';
import { sceneJpeg } from './draw-plate.ts';
import { readerFixture } from './reader-post.ts';
import { closeServer, listenLoopback, send } from './server.ts';

/**
 * Frigate as the appliance meets it (docs/readers.md "Frigate"): tracked-object messages on
 * `<prefix>/events` of a real broker, shaped like the adapter's fixture (Frigate's documented
 * 0.16 layout), and the HTTP API's `/api/events/<id>/snapshot.jpg` serving a real drawn JPEG.
 * One vehicle passing is what Frigate sends: `new` (no plate yet), `update` with the plate,
 * the same plate again in later `update`s, and `end`. Published with QoS 0, as Frigate does.
 * Run: npx tsx scripts/simulators/frigate.ts --broker mqtt://127.0.0.1:1883 --plate AB12CDE [--camera driveway] [--port 5000]
 */

export interface FrigateRead {
  plate: string;
  timeMs: number;
  camera?: string;
  /** Frigate's id `<epoch>.<micro>-<6 letters>`; made from the time when absent. */
  eventId?: string;
  /** How many `update` messages repeat the plate after the first one (default 3). */
  repeats?: number;
  /** Frigate 0.13-0.15 with an outside recognizer: the plate as a sub label instead. */
  style?: 'lpr' | 'sub_label';
}

export const frigateEventId = (timeMs: number, salt = 'abcdef'): string => `${(timeMs / 1000).toFixed(6)}-${salt.slice(0, 6)}`;

/** The messages of one vehicle passing, oldest first (JSON texts). */
export function frigateEventMessages(read: FrigateRead): string[] {
  const fixture = readerFixture('frigate', 'event-update-lpr.json') as { after: Record<string, unknown> };
  const id = read.eventId ?? frigateEventId(read.timeMs);
  const start = read.timeMs / 1000;
  const object = (frame: number, withPlate: boolean, end: number | null): Record<string, unknown> => ({
    ...fixture.after,
    id,
    camera: read.camera ?? 'driveway',
    start_time: start,
    frame_time: start + frame,
    end_time: end,
    sub_label: withPlate && read.style === 'sub_label' ? [read.plate, 0.91] : null,
    ...(read.style === 'sub_label'
      ? { recognized_license_plate: undefined, recognized_license_plate_score: undefined }
      : { recognized_license_plate: withPlate ? read.plate : null, recognized_license_plate_score: withPlate ? 0.933451 : null }),
  });
  const messages: Array<Record<string, unknown>> = [];
  let before = object(0, false, null);
  const push = (type: string, after: Record<string, unknown>): void => {
    messages.push({ type, before, after });
    before = after;
  };
  push('new', object(0, false, null));
  push('update', object(0.4, true, null));
  for (let i = 0; i < (read.repeats ?? 3); i++) push('update', object(0.8 + i * 0.4, true, null));
  push('end', object(2, true, start + 2.5));
  return messages.map((m) => JSON.stringify(m));
}

export interface FrigateSimulator {
  /** Frigate's HTTP API base, `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Publish one vehicle passing; resolves once the broker has every message. */
  pass(read: FrigateRead): Promise<string>;
  /** Snapshot requests served so far, by path. */
  snapshotRequests(): string[];
  close(): Promise<void>;
}

export async function startFrigateSimulator(options: {
  brokerUrl: string;
  mqtt?: IClientOptions;
  topicPrefix?: string;
  port?: number;
  /** Events whose snapshot answers 404 (Frigate keeps none: snapshots off, or cleaned up). */
  noSnapshot?: (eventId: string) => boolean;
}): Promise<FrigateSimulator> {
  const plates = new Map<string, string>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const match = /^\/api\/events\/([A-Za-z0-9._-]{1,100})\/snapshot\.jpg(\?.*)?$/.exec(req.url ?? '');
    requests.push(req.url ?? '');
    const plate = match?.[1] !== undefined ? plates.get(match[1]) : undefined;
    if (req.method !== 'GET' || !match?.[1] || plate === undefined || options.noSnapshot?.(match[1])) {
      send(res, 404, 'application/json', JSON.stringify({ success: false, message: 'Event not found' }));
      return;
    }
    send(res, 200, 'image/jpeg', sceneJpeg(plate));
  });
  const port = await listenLoopback(server, options.port ?? 0);
  const client: MqttClient = await mqtt.connectAsync(options.brokerUrl, { ...options.mqtt, clientId: `frigate-sim-${port}` });
  const topic = `${options.topicPrefix ?? 'frigate'}/events`;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async pass(read) {
      const id = read.eventId ?? frigateEventId(read.timeMs);
      plates.set(id, read.plate);
      for (const message of frigateEventMessages({ ...read, eventId: id })) await client.publishAsync(topic, message, { qos: 0 });
      return id;
    },
    snapshotRequests: () => [...requests],
    async close() {
      await client.endAsync();
      await closeServer(server);
    },
  };
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const sim = await startFrigateSimulator({ brokerUrl: args.get('broker') ?? 'mqtt://127.0.0.1:1883', port: Number(args.get('port') ?? 5000) });
  const id = await sim.pass({ plate: args.get('plate') ?? 'AB12CDE', timeMs: Date.now(), camera: args.get('camera') ?? 'driveway' });
  console.log(JSON.stringify({ api: sim.url, event: id }));
  closeOnSignals(() => sim.close());
}
