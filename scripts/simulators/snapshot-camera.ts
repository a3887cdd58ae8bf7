import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeOnSignals, isMain, numberArg, parseCliArgs } from './cli-args.ts';
import { createDigestGuard } from './digest-server.ts';
import { createOnvifDevice, ONVIF_DEVICE_SERVICE, ONVIF_MEDIA_SERVICE } from './onvif-device.ts';
import type { OnvifCounts } from './onvif-device.ts';
import type { ServerAlgorithm } from './digest-server.ts';
import { closeServer, listenLoopback, send } from './server.ts';
import { datasetPassages, drawnPassages, emptyRoadJpeg } from './snapshot-scenes.ts';
import type { Passage } from './snapshot-scenes.ts';

/**
 * An ordinary IP camera as the appliance's `snapshot` kind meets it (docs/ordinary-cameras.md):
 * one JPEG per GET on a snapshot path (Hikvision's by default), behind Basic or Digest (RFC 7616,
 * qop=auth, MD5 or SHA-256) or no login. It shows a playlist of passages: each picture for
 * `holdMs`, then the empty road for `gapMs`, in a loop (or once). Field faults on request: a slow
 * answer, and every n-th answer an HTML page labelled image/jpeg. With `onvif`, it also answers
 * ONVIF's GetSnapshotUri (onvif-device.ts), so a client finds a snapshot path no vendor list has.
 *
 * Run: npx tsx scripts/simulators/snapshot-camera.ts --port 8090 [--auth digest|basic|none]
 *      [--dataset 20] [--plates AB12CDE,XY99ZZZ] [--hold-ms 3000] [--gap-ms 2000]
 */

export interface SnapshotCameraOptions {
  port?: number;
  /** Served path; default Hikvision's `/ISAPI/Streaming/channels/101/picture`. */
  path?: string;
  auth?: 'none' | 'basic' | 'digest';
  username?: string;
  password?: string;
  algorithm?: ServerAlgorithm;
  passages: Passage[];
  holdMs?: number;
  gapMs?: number;
  /** Play the list once then show the empty road (default: loop). */
  once?: boolean;
  /** No timer: the road until `show(i)` puts passage i in view (a test paces the camera by what the appliance has read). */
  manual?: boolean;
  /** Wait this long before every answer (a slow camera). */
  slowMs?: number;
  /** Every n-th answer is an HTML error page labelled image/jpeg. */
  notJpegEvery?: number;
  now?: () => number;
  /** Answer ONVIF too (same login unless `username`/`password` are given here, as cameras with separate ONVIF users). */
  onvif?: { clockOffsetMs?: number; reportedHost?: string; username?: string; password?: string };
}

export interface ShownPassage {
  index: number;
  plate: string | null;
  name: string;
  /** When the picture first went out, epoch ms (null: never asked for while shown). */
  firstServedAt: number | null;
  served: number;
}

export interface SnapshotCameraHandle {
  url: string;
  port: number;
  /** The full snapshot URL. */
  snapshotUrl: string;
  /** Every passage the camera has shown so far, in order. */
  shown(): ShownPassage[];
  /** Requests answered 200 with a picture, 401, and with the not-a-JPEG fault. */
  counts(): { pictures: number; challenges: number; notJpeg: number };
  /** Restart the playlist now. */
  restart(): void;
  /** Manual mode: passage `index` in view, or the empty road (null). */
  show(index: number | null): void;
  /** True once a `once` playlist has been shown to the end. */
  finished(): boolean;
  /** ONVIF calls answered, by name, and tokens refused (all zero without `onvif`). */
  onvifCounts(): OnvifCounts;
  close(): Promise<void>;
}

export const HIKVISION_SNAPSHOT_PATH = '/ISAPI/Streaming/channels/101/picture';

export async function startSnapshotCamera(options: SnapshotCameraOptions): Promise<SnapshotCameraHandle> {
  const path = options.path ?? HIKVISION_SNAPSHOT_PATH;
  const auth = options.auth ?? 'digest';
  const username = options.username ?? 'admin';
  const password = options.password ?? 'admin12345';
  const holdMs = options.holdMs ?? 3_000;
  const gapMs = options.gapMs ?? 2_000;
  const now = options.now ?? Date.now;
  const guard = createDigestGuard({ username, password, realm: 'IP Camera', algorithm: options.algorithm ?? 'MD5' });
  const road = emptyRoadJpeg();
  const shown = new Map<number, ShownPassage>();
  const counts = { pictures: 0, challenges: 0, notJpeg: 0 };
  let startedAt = now();
  let answered = 0;
  let manualIndex: number | null = null;
  const onvif = options.onvif
    ? createOnvifDevice({
        username: options.onvif.username ?? username,
        password: options.onvif.password ?? password,
        snapshotPath: path,
        now,
        ...(options.onvif.clockOffsetMs !== undefined ? { clockOffsetMs: options.onvif.clockOffsetMs } : {}),
        ...(options.onvif.reportedHost !== undefined ? { reportedHost: options.onvif.reportedHost } : {}),
      })
    : undefined;

  /** SOAP requests are small; 64 KiB bounds a broken client. */
  async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 64 * 1024) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** The picture on screen now: passage i for holdMs, then the road for gapMs. */
  function current(): { jpeg: Buffer; index: number | null } {
    if (options.manual) {
      const passage = manualIndex === null ? undefined : options.passages[manualIndex];
      return passage && manualIndex !== null ? { jpeg: passage.jpeg, index: manualIndex } : { jpeg: road, index: null };
    }
    const cycle = holdMs + gapMs;
    const elapsed = now() - startedAt;
    let slot = Math.floor(elapsed / cycle);
    if (options.once && slot >= options.passages.length) return { jpeg: road, index: null };
    slot %= Math.max(1, options.passages.length);
    if (elapsed % cycle >= holdMs) return { jpeg: road, index: null };
    const passage = options.passages[slot];
    return passage ? { jpeg: passage.jpeg, index: Math.floor(elapsed / cycle) } : { jpeg: road, index: null };
  }

  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    if (auth === 'none') return true;
    const header = req.headers.authorization;
    if (auth === 'basic') {
      const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      if (header === expected) return true;
      counts.challenges += 1;
      send(res, 401, 'text/plain', 'login required', { 'www-authenticate': 'Basic realm="IP Camera"' });
      return false;
    }
    const verdict = guard.verify(req.method ?? 'GET', req.url ?? '/', header);
    if (verdict === 'ok') return true;
    counts.challenges += 1;
    send(res, 401, 'text/plain', 'login required', { 'www-authenticate': guard.challenge(verdict === 'stale') });
    return false;
  }

  const server = createServer((req, res) => {
    void (async () => {
      if (options.slowMs) await sleep(options.slowMs);
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      if (onvif && req.method === 'POST' && (pathname === ONVIF_DEVICE_SERVICE || pathname === ONVIF_MEDIA_SERVICE)) {
        const body = await readBody(req);
        if (!body) return send(res, 413, 'text/plain', 'too large');
        return onvif.handle(pathname, req.headers.host ?? `127.0.0.1:${port}`, body, res);
      }
      if (pathname !== path || req.method !== 'GET') return send(res, 404, 'text/plain', 'not found');
      if (!authorized(req, res)) return;
      answered += 1;
      if (options.notJpegEvery && answered % options.notJpegEvery === 0) {
        counts.notJpeg += 1;
        return send(res, 200, 'image/jpeg', '<html><body>Camera busy</body></html>');
      }
      const { jpeg, index } = current();
      if (index !== null) {
        const passage = options.passages[index % options.passages.length];
        const entry = shown.get(index) ?? { index, plate: passage?.plate ?? null, name: passage?.name ?? '', firstServedAt: now(), served: 0 };
        entry.served += 1;
        shown.set(index, entry);
      }
      counts.pictures += 1;
      send(res, 200, 'image/jpeg', jpeg);
    })().catch(() => res.destroy());
  });
  const port = await listenLoopback(server, options.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    snapshotUrl: `${url}${path}`,
    shown: () => [...shown.values()].sort((a, b) => a.index - b.index).map((s) => ({ ...s })),
    counts: () => ({ ...counts }),
    restart() {
      startedAt = now();
      shown.clear();
    },
    show(index) {
      manualIndex = index;
    },
    finished: () => options.once === true && now() - startedAt >= (holdMs + gapMs) * options.passages.length,
    onvifCounts: () => onvif?.counts() ?? { calls: {}, refused: 0 },
    close: () => closeServer(server),
  };
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const dataset = numberArg(args, 'dataset');
  const plates = (args.get('plates') ?? 'AB12CDE,XY99ZZZ,KL55MNO').split(',').filter(Boolean);
  const auth = (args.get('auth') ?? 'digest') as 'none' | 'basic' | 'digest';
  const camera = await startSnapshotCamera({
    port: numberArg(args, 'port') ?? 0,
    auth,
    passages: dataset !== undefined ? datasetPassages(dataset) : drawnPassages(plates),
    holdMs: numberArg(args, 'hold-ms') ?? 3_000,
    gapMs: numberArg(args, 'gap-ms') ?? 2_000,
  });
  process.stdout.write(`${JSON.stringify({ url: camera.url, snapshotUrl: camera.snapshotUrl, auth })}\n`);
  closeOnSignals(() => camera.close());
}
