/**
 * vendor_a (Hikvision-style ISAPI) ANPR camera simulator, for tests and manual runs.
 *
 *   npx tsx scripts/simulators/vendor-a-camera.ts --port 8081 --rate 2 --count 100 \
 *     [--mode pull|push] [--push-url http://127.0.0.1:9000/ingest] [--push-format xml|multipart|mixed] \
 *     [--algorithm MD5|SHA-256] [--user admin] [--password secret] [--timezone Europe/Paris] [--seed 1]
 *
 * Serves (Digest auth on everything): POST/GET /ISAPI/Traffic/channels/{id}/vehicleDetect/plates,
 * GET /doc/ui/images/plate/<picName>.jpg, GET /ISAPI/System/deviceInfo. Binds 127.0.0.1 only.
 * See scripts/simulators/README.md for what `delivered` means in each mode.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeOnSignals, isMain, numberArg, parseCliArgs } from './cli-args.ts';
import { createDigestGuard } from './digest-server.ts';
import type { ServerAlgorithm } from './digest-server.ts';
import { isoLocal, utcSeconds } from './local-time.ts';
import { createReadGenerator, createRng, hexId, sha256, uuidFrom } from './plates.ts';
import type { DeliveredRead, PlateRead, ReadGeneratorOptions } from './plates.ts';
import { closeServer, listenLoopback, readRequestBody, send } from './server.ts';
import type { SimulatorHandle } from './server.ts';
import { pushRead } from './vendor-a-push.ts';
import type { PushFormat } from './vendor-a-push.ts';
import { nextPicName, parseCursor, picTimeOf, selectForPull } from './vendor-a-store.ts';
import type { StoredRead } from './vendor-a-store.ts';
import { platesXml } from './vendor-a-xml.ts';
import { startWsDiscoveryResponder } from './ws-discovery.ts';
import type { WsDiscoveryResponder } from './ws-discovery.ts';

export interface VendorACameraOptions extends ReadGeneratorOptions {
  port?: number;
  username?: string;
  password?: string;
  algorithm?: ServerAlgorithm;
  /** Requests per nonce before the camera answers `stale=true`. Default unlimited. */
  nonceMaxUses?: number;
  /** Lower case with colons, as the camera prints it. Default derived from the seed. */
  mac?: string;
  channelId?: number;
  /** IANA zone of the camera clock. Default Europe/Paris. */
  timezone?: string;
  /** Reads per second; 0 = only `addReads()` produces reads. Default 1. */
  ratePerSecond?: number;
  /** Stop producing after this many reads (timer only). */
  count?: number;
  mode?: 'pull' | 'push';
  pushUrl?: string;
  pushFormat?: PushFormat;
  pushRetries?: number;
  pushRetryDelayMs?: number;
  pushTimeoutMs?: number;
  emptyImageRate?: number;
  /**
   * Share of reads whose plate crop is text labelled image/jpeg: in the multipart post (push),
   * or from the plate image URL (pull). Default 0.
   */
  mislabelledImageRate?: number;
  /** Pull: chance of appending a copy of an old entry. Default 0.1. */
  oldCopyRate?: number;
  /** Pull: answer 405 to POST on the plates list (a device that takes only the GET variant). */
  refusePost?: boolean;
  /** Pull: entries per response. Default 50. */
  maxPlatesPerResponse?: number;
  /** True time; default Date.now. */
  now?: () => number;
  /**
   * The camera clock's error: it shows true time plus this (8 years ahead, 26 behind...).
   * Changeable while running with `setClockOffset` (a time server finally configured).
   */
  clockOffsetMs?: number;
  /**
   * Answer ONVIF WS-Discovery probes (ws-discovery.ts) on 127.0.0.1 at a free UDP port;
   * `multicast` also joins 239.255.255.250:3702 where the host allows it. Default off.
   */
  wsDiscovery?: boolean | { multicast?: boolean; port?: number };
}

export interface VendorACamera extends SimulatorHandle {
  mac: string;
  /** Reads the camera handed over: push answered 2xx, or pull returned it for the first time. */
  delivered: DeliveredRead[];
  /** Push reads given up after all retries (detection ids). */
  undelivered: string[];
  /** Every read produced, in order. */
  produced: StoredRead[];
  /** Request counters: lets a test see that a client reuses its nonce instead of re-handshaking. */
  stats: { requests: number; unauthorized: number; stale: number; platesPosts: number; platesGets: number };
  addReads(n: number): void;
  /** Resolves once `count` reads exist (when a count is set) and no push is pending. */
  idle(): Promise<void>;
  /** Ends production now (before `count`): a soak's cameras produce until its cycles end. */
  stopProducing(): void;
  /** The WS-Discovery responder, when `wsDiscovery` was asked for. */
  discovery?: WsDiscoveryResponder;
  /** Moves the camera's clock (its error against true time) from now on. */
  setClockOffset(ms: number): void;
}

const XML = 'application/xml; charset="UTF-8"';
const PLATES_PATH = /^\/ISAPI\/Traffic\/channels\/(\d+)\/vehicleDetect\/plates$/;
const IMAGE_PATH = /^\/doc\/ui\/images\/plate\/(\d+)\.jpg$/;

const statusXml = (code: number, sub: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ResponseStatus version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">\n<statusCode>${code}</statusCode>\n<subStatusCode>${sub}</subStatusCode>\n</ResponseStatus>\n`;

export async function startVendorACamera(options: VendorACameraOptions = {}): Promise<VendorACamera> {
  const seed = options.seed ?? 1;
  const timezone = options.timezone ?? 'Europe/Paris';
  const channelId = options.channelId ?? 1;
  const mode = options.mode ?? 'pull';
  const now = options.now ?? Date.now;
  let clockOffsetMs = options.clockOffsetMs ?? 0;
  let clockSetBack = false;
  /** What the camera's clock shows. */
  const cameraNow = (): number => now() + clockOffsetMs;
  if (mode === 'push' && !options.pushUrl) throw new Error('push mode needs pushUrl');
  const generator = createReadGenerator(options);
  const serverRng = createRng(seed + 1);
  const pushRng = createRng(seed + 2);
  // Its own generator: turning the fault on leaves every other seeded sequence unchanged.
  const faultRng = createRng(seed + 4);
  const mislabelled = new Set<string>();
  const mac = options.mac ?? `bc:5e:33:${hexId(createRng(seed + 3), 6).replace(/(..)(..)(..)/, '$1:$2:$3')}`;
  const guard = createDigestGuard({
    username: options.username ?? 'admin',
    password: options.password ?? 'admin12345',
    realm: 'IP Camera',
    algorithm: options.algorithm ?? 'MD5',
    ...(options.nonceMaxUses !== undefined ? { nonceMaxUses: options.nonceMaxUses } : {}),
  });
  const produced: StoredRead[] = [];
  const delivered: DeliveredRead[] = [];
  const undelivered: string[] = [];
  const handedOut = new Set<string>();
  const closing = new AbortController();
  let pushChain: Promise<void> = Promise.resolve();
  const stats = { requests: 0, unauthorized: 0, stale: 0, platesPosts: 0, platesGets: 0 };

  const repeatId = (read: PlateRead, idOf: (e: StoredRead) => string): string | undefined => {
    const original = read.repeatOf === undefined ? undefined : produced[read.repeatOf];
    return original ? idOf(original) : undefined;
  };
  const record = (entry: StoredRead, detectionId: string, time: string, images: DeliveredRead['images'], idOf: (e: StoredRead) => string): void => {
    const repeatOf = repeatId(entry.read, idOf);
    delivered.push({
      detectionId,
      plate: entry.read.plate,
      unknown: entry.read.unknown,
      time,
      trueTimeMs: entry.trueMs,
      mac,
      images,
      ...(repeatOf ? { repeatOf } : {}),
    });
  };

  function produce(): void {
    // One reading of the clock per read (a test's clock may move on every call).
    const trueMs = now();
    const read = generator.next(trueMs + clockOffsetMs, clockSetBack);
    clockSetBack = false;
    const entry: StoredRead = { read, picName: nextPicName(read, timezone, produced.at(-1)?.picName), uuid: uuidFrom(generator.rng), trueMs };
    if (mode === 'pull' && (options.mislabelledImageRate ?? 0) > 0 && faultRng() < (options.mislabelledImageRate ?? 0)) mislabelled.add(entry.picName);
    produced.push(entry);
    if (mode !== 'push' || !options.pushUrl) return;
    const config = {
      url: options.pushUrl,
      format: options.pushFormat ?? 'multipart',
      retries: options.pushRetries ?? 3,
      retryDelayMs: options.pushRetryDelayMs ?? 500,
      emptyImageRate: options.emptyImageRate ?? 0.1,
      mislabelledImageRate: options.mislabelledImageRate ?? 0,
      timeoutMs: options.pushTimeoutMs ?? 5000,
      timezone,
      mac,
      channelId,
      signal: closing.signal,
    };
    // One post at a time, in order, like the camera's upload queue.
    pushChain = pushChain.then(async () => {
      const outcome = await pushRead(read, entry.uuid, config, pushRng);
      if (outcome.delivered) record(entry, entry.uuid, new Date(read.timeMs).toISOString(), outcome.images, (e) => e.uuid);
      else undelivered.push(entry.uuid);
    });
  }

  function servePlates(res: ServerResponse, cursorText: string | undefined, inlineImages: boolean): void {
    const cursor = cursorText === undefined || cursorText === '' ? undefined : parseCursor(cursorText);
    if (cursorText && !cursor) return send(res, 400, XML, statusXml(6, 'badXmlContent'));
    const limit = options.maxPlatesPerResponse ?? 50;
    const page = selectForPull(produced, cursor, { limit, oldCopyRate: options.oldCopyRate ?? 0.1 }, serverRng);
    for (const entry of page) {
      if (handedOut.has(entry.picName)) continue;
      handedOut.add(entry.picName);
      const images = inlineImages
        ? { plateCrop: sha256(entry.read.crop), fullScene: sha256(entry.read.scene) }
        : mislabelled.has(entry.picName)
          ? {}
          : { plateCrop: sha256(entry.read.crop) };
      record(entry, entry.picName, utcSeconds(entry.read.timeMs), images, (e) => e.picName);
    }
    send(res, 200, XML, platesXml(page, { timezone, inlineImages }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readRequestBody(req);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const verdict = guard.verify(method, target, req.headers.authorization);
    stats.requests += 1;
    if (verdict !== 'ok') {
      stats.unauthorized += 1;
      if (verdict === 'stale') stats.stale += 1;
      return send(res, 401, XML, statusXml(4, 'Unauthorized'), { 'www-authenticate': guard.challenge(verdict === 'stale') });
    }
    const url = new URL(target, 'http://camera');
    const plates = PLATES_PATH.exec(url.pathname);
    if (plates) {
      if (Number(plates[1]) !== channelId) return send(res, 404, XML, statusXml(4, 'invalidID'));
      if (method === 'POST') stats.platesPosts += 1;
      if (method === 'GET') stats.platesGets += 1;
      if (method === 'POST' && options.refusePost) return send(res, 405, XML, statusXml(4, 'methodNotAllowed'));
      if (method === 'POST') return servePlates(res, picTimeOf(body.toString('utf8')), false);
      if (method === 'GET') return servePlates(res, url.searchParams.get('picTime') ?? undefined, true);
      return send(res, 405, XML, statusXml(4, 'methodNotAllowed'));
    }
    const image = IMAGE_PATH.exec(url.pathname);
    if (image && method === 'GET') {
      const entry = produced.find((e) => e.picName === image[1]);
      if (entry && mislabelled.has(entry.picName)) return send(res, 200, 'image/jpeg', Buffer.from('Not Found\r\n', 'latin1'));
      return entry ? send(res, 200, 'image/jpeg', entry.read.crop) : send(res, 404, XML, statusXml(4, 'notFound'));
    }
    if (url.pathname === '/ISAPI/System/time' && method === 'GET') {
      // The camera's own clock, whole seconds, with the offset it believes it is at.
      const local = isoLocal(cameraNow(), timezone).replace(/\.\d{3}/, '');
      return send(
        res,
        200,
        XML,
        `<?xml version="1.0" encoding="UTF-8"?>\n<Time version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">\n<timeMode>manual</timeMode>\n<localTime>${local}</localTime>\n<timeZone>CST-1:00:00</timeZone>\n</Time>\n`,
      );
    }
    if (url.pathname === '/ISAPI/System/deviceInfo' && method === 'GET') {
      return send(
        res,
        200,
        XML,
        `<?xml version="1.0" encoding="UTF-8"?>\n<DeviceInfo version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">\n<deviceName>ANPR Simulator</deviceName>\n<macAddress>${mac}</macAddress>\n<model>SIM-ANPR</model>\n</DeviceInfo>\n`,
      );
    }
    send(res, 404, XML, statusXml(4, 'notFound'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, XML, statusXml(6, 'internalError'));
      else res.destroy();
    });
  });
  const port = await listenLoopback(server, options.port ?? 0);
  const ws = options.wsDiscovery;
  const discovery = ws
    ? await startWsDiscoveryResponder({
        device: { xaddr: `http://127.0.0.1:${port}/onvif/device_service`, manufacturer: 'HIKVISION', model: 'DS-2CD7A26G0/P-IZHS' },
        ...(typeof ws === 'object' && ws.port !== undefined ? { port: ws.port } : {}),
        ...(typeof ws === 'object' && ws.multicast ? { multicast: true } : {}),
      })
    : undefined;

  const rate = options.ratePerSecond ?? 1;
  let timer: NodeJS.Timeout | undefined;
  let doneProducing: () => void = () => undefined;
  const producedAll = new Promise<void>((resolve) => (doneProducing = resolve));
  if (rate > 0 && options.count !== 0) {
    timer = setInterval(() => {
      produce();
      if (options.count !== undefined && produced.length >= options.count) {
        clearInterval(timer);
        doneProducing();
      }
    }, 1000 / rate);
  } else doneProducing();
  if (options.count === undefined) doneProducing();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    mac,
    delivered,
    undelivered,
    produced,
    stats,
    ...(discovery ? { discovery } : {}),
    addReads(n) {
      for (let i = 0; i < n; i++) produce();
    },
    stopProducing() {
      clearInterval(timer);
      doneProducing();
    },
    setClockOffset(ms) {
      if (ms < clockOffsetMs) clockSetBack = true;
      clockOffsetMs = ms;
    },
    async idle() {
      await producedAll;
      // New posts can be queued while we wait: wait until the chain stops growing.
      for (let chain = pushChain; ; chain = pushChain) {
        await chain;
        if (chain === pushChain) return;
      }
    },
    async close() {
      clearInterval(timer);
      doneProducing();
      closing.abort();
      await pushChain;
      await discovery?.close();
      await closeServer(server);
    },
  };
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const count = numberArg(args, 'count');
  const camera = await startVendorACamera({
    port: numberArg(args, 'port') ?? 8081,
    ratePerSecond: numberArg(args, 'rate') ?? 1,
    ...(count !== undefined ? { count } : {}),
    seed: numberArg(args, 'seed') ?? 1,
    mode: args.get('mode') === 'push' ? 'push' : 'pull',
    ...(args.has('push-url') ? { pushUrl: args.get('push-url') } : {}),
    pushFormat: (args.get('push-format') ?? 'multipart') as PushFormat,
    algorithm: args.get('algorithm') === 'SHA-256' ? 'SHA-256' : 'MD5',
    username: args.get('user') ?? 'admin',
    password: args.get('password') ?? 'admin12345',
    timezone: args.get('timezone') ?? 'Europe/Paris',
  });
  process.stdout.write(`${JSON.stringify({ simulator: 'vendor_a', url: camera.url, mac: camera.mac })}\n`);
  closeOnSignals(() => camera.close());
}
