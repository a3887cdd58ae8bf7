/**
 * vendor_b (UniFi-Protect-style) NVR simulator, for tests and manual runs.
 *
 *   npx tsx scripts/simulators/vendor-b-nvr.ts --port 8443 --rate 1 --count 50 \
 *     [--token sim-token] [--cameras 2] [--drop-every 20] [--thumbnail-rate 10] [--seed 1] [--tls]
 *
 * Serves (token in `Authorization: Bearer` or `X-API-KEY`): GET /proxy/protect/api/bootstrap,
 * GET /proxy/protect/api/events, GET /proxy/protect/api/events/{id}/thumbnail and
 * /proxy/protect/api/thumbnails/{id} (rate limited, 404 until the event ends), and the binary
 * updates WebSocket /proxy/protect/ws/updates. Binds 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { encodePacket } from '@alpr/shared/adapters/vendor-b/packet-encoder';
import { closeOnSignals, isMain, numberArg, parseCliArgs } from './cli-args.ts';
import { createReadGenerator, createRng, hexId, sha256 } from './plates.ts';
import type { DeliveredRead, PlateRead, ReadGeneratorOptions } from './plates.ts';
import { createRateLimiter } from './rate-limit.ts';
import { closeServer, listenLoopback, send } from './server.ts';
import type { SimulatorHandle } from './server.ts';
import { selfSignedCertificate } from './self-signed.ts';
import { applyPatch, endPatch, eventAdd, parseEventQuery, platePatch, queryEvents } from './vendor-b-events.ts';
import type { JsonObject, NvrCamera, NvrEvent } from './vendor-b-events.ts';

export interface VendorBNvrOptions extends ReadGeneratorOptions {
  port?: number;
  /** Accepted as `Authorization: Bearer <token>` and as `X-API-KEY: <token>`. Default `sim-token`. */
  token?: string;
  cameraCount?: number;
  timezone?: string;
  /** Reads per second; 0 = only `addReads()`. Default 1. */
  ratePerSecond?: number;
  count?: number;
  /** Delay from `add` to the plate `update`, and from `add` to the `end` update. */
  plateDelayMs?: number;
  endDelayMs?: number;
  /** Share of plate events in the legacy `metadata.licensePlate` shape. Default 0.2. */
  legacyRate?: number;
  /** Share of extra motion events (not plates, must be ignored). Default 0.1. */
  motionRate?: number;
  /** Thumbnail requests per second before 429. Default 10. */
  thumbnailRatePerSecond?: number;
  /**
   * A console before Protect 1.21 (the older API): no `events/{id}/thumbnail` (only
   * `thumbnails/{id}`), and the events query takes `type=licensePlate`, refusing `types` /
   * `smartDetectTypes` with 400.
   */
  olderApi?: boolean;
  /**
   * A console that ignores `limit` and `offset` and lists every event of the window at once
   * (a real console answered 1,351 events, 848 KB, to one query).
   */
  ignoreLimit?: boolean;
  /** Terminate each WebSocket abruptly after this many messages sent to it. */
  dropEvery?: number;
  /** Serve HTTPS/WSS with this key and certificate (`true`: generate a self-signed one). */
  tls?: { key: string; cert: string } | true;
  now?: () => number;
}

export interface VendorBNvr extends SimulatorHandle {
  /** `wss://…` or `ws://…` base of the same server. */
  wsUrl: string;
  cameras: NvrCamera[];
  /** Plate events that ended (plate and thumbnail available through the API and the WebSocket). */
  delivered: DeliveredRead[];
  events: Map<string, NvrEvent>;
  /** Number of WebSocket connections the simulator terminated on purpose. */
  drops: number;
  /** PEM of the served certificate when TLS is on. */
  certificate?: string;
  addReads(n: number): void;
  idle(): Promise<void>;
  /** Ends production now (before `count`); events already started still end and deliver. */
  stopProducing(): void;
  /** Sends these bytes as one binary message to every open updates socket (malformed-packet tests). */
  sendRaw(bytes: Uint8Array): void;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const EVENT_THUMB = /^\/proxy\/protect\/api\/events\/([0-9a-f]{24})\/thumbnail$/;
const LEGACY_THUMB = /^\/proxy\/protect\/api\/thumbnails\/(?:e-)?([0-9a-f]{24})$/;

export async function startVendorBNvr(options: VendorBNvrOptions = {}): Promise<VendorBNvr> {
  const seed = options.seed ?? 1;
  const now = options.now ?? Date.now;
  const token = options.token ?? 'sim-token';
  const generator = createReadGenerator({ repeatRate: 0, ...options });
  const rng = createRng(seed + 10);
  const idRng = createRng(seed + 11);
  const cameras: NvrCamera[] = Array.from({ length: options.cameraCount ?? 2 }, (_, i) => ({
    id: hexId(idRng, 24),
    mac: hexId(idRng, 12).toUpperCase(),
    name: `LPR ${i + 1}`,
  }));
  const events = new Map<string, NvrEvent>();
  const scenes = new Map<string, Buffer>();
  const delivered: DeliveredRead[] = [];
  const sockets = new Map<WebSocket, number>();
  const limiter = createRateLimiter(options.thumbnailRatePerSecond ?? 10, now);
  const timers = new Set<NodeJS.Timeout>();
  let lastUpdateId = randomUUID();
  let drops = 0;

  function broadcast(action: 'add' | 'update', modelKey: string, id: string, data: JsonObject): void {
    lastUpdateId = randomUUID();
    // Nobody listening (a pull test): skip the deflate, about 1 s of CPU for 2,000 events (three packets each).
    if (sockets.size === 0) return;
    const packet = encodePacket({ action, newUpdateId: lastUpdateId, modelKey, id }, data);
    for (const [ws, sent] of sockets) {
      if (ws.readyState !== ws.OPEN) continue;
      ws.send(packet, { binary: true });
      sockets.set(ws, sent + 1);
      if (options.dropEvery !== undefined && (sent + 1) % options.dropEvery === 0) {
        // An abrupt drop, no close frame: what a console restart or Wi-Fi blip looks like.
        ws.terminate();
        sockets.delete(ws);
        drops += 1;
      }
    }
  }

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  function update(id: string, patch: JsonObject): void {
    const current = events.get(id);
    if (!current) return;
    events.set(id, applyPatch(current, patch));
    broadcast('update', 'event', id, patch);
  }

  function startEvent(read: PlateRead | undefined, type: string, camera: NvrCamera): void {
    const id = hexId(idRng, 24);
    const startMs = read?.timeMs ?? now();
    const added = eventAdd(id, camera, startMs, type);
    events.set(id, added);
    broadcast('add', 'event', id, added);
    const plateDelay = options.plateDelayMs ?? 300;
    const endDelay = Math.max(options.endDelayMs ?? 600, plateDelay);
    const legacy = rng() < (options.legacyRate ?? 0.2);
    const patch = read ? platePatch(read, camera, legacy, rng) : undefined;
    if (patch) later(plateDelay, () => update(id, patch));
    else broadcast('update', 'camera', camera.id, { lastMotion: startMs, isMotionDetected: true });
    later(endDelay, () => {
      if (read) scenes.set(id, read.scene);
      update(id, endPatch(startMs + endDelay, read ? read.confidence : 40));
      if (!read) return;
      delivered.push({
        detectionId: id,
        plate: read.unknown ? '' : read.plate,
        unknown: read.unknown,
        time: new Date(read.timeMs).toISOString(),
        mac: camera.mac,
        images: { fullScene: sha256(read.scene) },
      });
    });
  }

  let produced = 0;
  function produce(): void {
    const read = generator.next(now());
    produced += 1;
    const camera = cameras[read.seq % cameras.length] as NvrCamera;
    startEvent(read, 'smartDetectZone', camera);
    if (rng() < (options.motionRate ?? 0.1)) startEvent(undefined, 'motion', camera);
  }

  const authorized = (req: IncomingMessage): boolean => req.headers.authorization === `Bearer ${token}` || req.headers['x-api-key'] === token;

  function serveThumbnail(res: ServerResponse, id: string): void {
    if (!limiter.take()) {
      return send(res, 429, JSON_TYPE, JSON.stringify({ error: 'Too Many Requests' }), {
        'retry-after': '1',
        'ratelimit-policy': `${options.thumbnailRatePerSecond ?? 10};w=1`,
      });
    }
    const scene = scenes.get(id);
    // Thumbnails do not exist until the event ends [B2]: clients must retry on 404.
    if (!scene) return send(res, 404, JSON_TYPE, JSON.stringify({ error: 'Not Found' }));
    send(res, 200, 'image/jpeg', scene);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (!authorized(req)) return send(res, 401, JSON_TYPE, JSON.stringify({ error: 'Unauthorized' }));
    const url = new URL(req.url ?? '/', 'http://nvr');
    if (req.method !== 'GET') return send(res, 405, JSON_TYPE, JSON.stringify({ error: 'Method Not Allowed' }));
    if (url.pathname === '/proxy/protect/api/bootstrap') {
      const body = {
        cameras: cameras.map((c) => ({
          ...c,
          modelKey: 'camera',
          type: 'UVC AI LPR',
          state: 'CONNECTED',
          featureFlags: { smartDetectTypes: ['vehicle', 'licensePlate'] },
        })),
        nvr: { id: hexId(createRng(seed), 24), modelKey: 'nvr', name: 'Simulated NVR', timezone: options.timezone ?? 'America/New_York', version: '6.1.0' },
        lastUpdateId,
      };
      return send(res, 200, JSON_TYPE, JSON.stringify(body));
    }
    if (url.pathname === '/proxy/protect/api/events') {
      if (options.olderApi) {
        if (url.searchParams.has('types') || url.searchParams.has('smartDetectTypes')) {
          return send(res, 400, JSON_TYPE, JSON.stringify({ error: 'unknown parameter' }));
        }
        if (url.searchParams.get('type') === 'licensePlate') url.searchParams.set('smartDetectTypes', 'licensePlate');
        url.searchParams.delete('type');
      }
      const query = parseEventQuery(url.searchParams);
      if (typeof query === 'string') return send(res, 400, JSON_TYPE, JSON.stringify({ error: query }));
      const asked = options.ignoreLimit ? { ...query, limit: undefined, offset: 0 } : query;
      return send(res, 200, JSON_TYPE, JSON.stringify(queryEvents([...events.values()], asked)));
    }
    const thumb = (options.olderApi ? null : EVENT_THUMB.exec(url.pathname)) ?? LEGACY_THUMB.exec(url.pathname);
    if (thumb?.[1]) return serveThumbnail(res, thumb[1]);
    send(res, 404, JSON_TYPE, JSON.stringify({ error: 'Not Found' }));
  }

  const tls = options.tls === true ? selfSignedCertificate('127.0.0.1') : options.tls;
  const server: Server = tls ? createTlsServer({ key: tls.key, cert: tls.cert }, handle) : createServer(handle);
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://nvr').pathname;
    if (path !== '/proxy/protect/ws/updates' || !authorized(req)) {
      socket.end(`HTTP/1.1 ${path === '/proxy/protect/ws/updates' ? '401 Unauthorized' : '404 Not Found'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(ws, 0);
      ws.on('close', () => sockets.delete(ws));
    });
  });
  const port = await listenLoopback(server, options.port ?? 0);

  const rate = options.ratePerSecond ?? 1;
  let timer: NodeJS.Timeout | undefined;
  let producing = rate > 0 && options.count !== 0;
  if (producing) {
    timer = setInterval(() => {
      produce();
      if (options.count !== undefined && produced >= options.count) {
        clearInterval(timer);
        producing = false;
      }
    }, 1000 / rate);
  }
  const scheme = tls ? 'https' : 'http';
  const nvr: VendorBNvr = {
    url: `${scheme}://127.0.0.1:${port}`,
    wsUrl: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}`,
    port,
    cameras,
    delivered,
    events,
    get drops() {
      return drops;
    },
    ...(tls ? { certificate: tls.cert } : {}),
    addReads(n) {
      for (let i = 0; i < n; i++) produce();
    },
    stopProducing() {
      clearInterval(timer);
      producing = false;
    },
    sendRaw(bytes) {
      for (const ws of sockets.keys()) if (ws.readyState === ws.OPEN) ws.send(bytes, { binary: true });
    },
    async idle() {
      // Poll our own state (no wall-clock assertion): production over and no lifecycle pending.
      while ((options.count !== undefined && producing) || timers.size > 0) {
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      clearInterval(timer);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const ws of sockets.keys()) ws.terminate();
      wss.close();
      await closeServer(server);
    },
  };
  return nvr;
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const count = numberArg(args, 'count');
  const dropEvery = numberArg(args, 'drop-every');
  const nvr = await startVendorBNvr({
    port: numberArg(args, 'port') ?? 8443,
    ratePerSecond: numberArg(args, 'rate') ?? 1,
    ...(count !== undefined ? { count } : {}),
    ...(dropEvery !== undefined ? { dropEvery } : {}),
    seed: numberArg(args, 'seed') ?? 1,
    token: args.get('token') ?? 'sim-token',
    cameraCount: numberArg(args, 'cameras') ?? 2,
    thumbnailRatePerSecond: numberArg(args, 'thumbnail-rate') ?? 10,
    ...(args.get('tls') === 'true' ? { tls: true as const } : {}),
  });
  process.stdout.write(`${JSON.stringify({ simulator: 'vendor_b', url: nvr.url, wsUrl: nvr.wsUrl, cameras: nvr.cameras })}\n`);
  closeOnSignals(() => nvr.close());
}
