import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMultipart } from '@alpr/shared/adapters/multipart';
import type { MultipartPart } from '@alpr/shared/adapters/multipart';
import { IMAGE_KINDS } from '@alpr/shared/detection/schema';
import type { Backpressure, BatchDetection, BatchItemResult } from '@alpr/shared/protocol/batch';
import { SUSPENDED_RETRY_AFTER_SECONDS } from '@alpr/shared/protocol/collector';
import { BATCH_PATH, HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { BATCH_METADATA_PART, MAX_BATCH_DETECTIONS, batchDetectionSchema, batchMetadataSchema } from '@alpr/shared/protocol/batch';

/**
 * A stand-in for the hub's batch endpoint on 127.0.0.1, speaking shared/protocol/batch.ts:
 * it checks the key, parses the multipart body with the shared parser, validates every
 * detection, checks every image's size and SHA-256, and answers stored/duplicate from an
 * in-memory set keyed by detection_id. Knobs let a test script the hub's bad days.
 * It also answers heartbeats (no commands), so the heartbeat's view of a suspended or a
 * replaced collector can be played against the same hub as the uploads.
 */
export interface StoredDetection {
  detection: BatchDetection;
  images: Record<string, Buffer>;
}

/**
 * A scripted answer for the next request: a fixed reply, no reply at all (hang), the
 * normal answer (pass), or "store, then lose the connection before answering"
 * (dropAfterStore: the case idempotent retries exist for).
 */
export type ScriptedReply = { status: number; body?: string; headers?: Record<string, string> } | { hang: true } | { pass: true } | { dropAfterStore: true };

export interface HubRequestLog {
  apiKey: string | undefined;
  detectionIds: string[];
  status: number;
  /** `now()` of the hub double when the request arrived (a test's manual clock), if it has one. */
  atMs?: number;
}

export class HubDouble {
  readonly stored = new Map<string, StoredDetection>();
  /** detection_ids in the order the hub first stored them. */
  readonly arrivals: string[] = [];
  readonly requests: HubRequestLog[] = [];
  readonly script: ScriptedReply[] = [];
  keys = new Set<string>(['alpr_test_key_0123456789abcdef']);
  backpressure: Backpressure | undefined;
  /** Leave these detection_ids out of `results` (the hub "forgets" them). */
  omit = new Set<string>();
  /** Answer `rejected` for detections with this plate text. */
  rejectPlate: string | undefined;
  /** Answer 400 for the WHOLE batch when it contains this plate text. */
  badRequestPlate: string | undefined;
  /**
   * An admin suspended the site (shared/protocol/collector.ts): every batch gets 403
   * `collector_suspended` with this Retry-After and nothing is stored; heartbeats answer
   * `collector_status: disabled`. Set back to false to resume.
   */
  suspended = false;
  suspendedRetryAfter: string | undefined = String(SUSPENDED_RETRY_AFTER_SECONDS);
  /** Keys of a box replaced by another device: 401 `collector_replaced` on every call. */
  replacedKeys = new Set<string>();
  /** Heartbeats answered (status per heartbeat), kept apart from the batch `requests`. */
  readonly heartbeats: number[] = [];
  /** Stamps `atMs` on each request: a test hands in its manual clock. */
  now: (() => number) | undefined;
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];

  async listen(port = 0): Promise<number> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const header = req.headers['x-api-key'];
    const apiKey = Array.isArray(header) ? header[0] : header;
    if (req.method === 'POST' && req.url === HEARTBEAT_PATH) return this.heartbeat(apiKey, res);
    const log: HubRequestLog = { apiKey, detectionIds: [], status: 0, ...(this.now ? { atMs: this.now() } : {}) };
    this.requests.push(log);
    const reply = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
      log.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof json === 'string' ? json : JSON.stringify(json));
    };
    if (req.method !== 'POST' || req.url !== BATCH_PATH) return reply(404, { error: { code: 'not_found', message: 'no route' } });
    if (apiKey && this.replacedKeys.has(apiKey)) return reply(401, REPLACED_BODY);
    if (!apiKey || !this.keys.has(apiKey)) return reply(401, { error: { code: 'unauthorized', message: 'invalid API key' } });
    if (this.suspended) {
      // The hub refuses before reading the body (nothing stored), as the contract says.
      return reply(403, SUSPENDED_BODY, this.suspendedRetryAfter === undefined ? {} : { 'retry-after': this.suspendedRetryAfter });
    }
    const parsed = parseMultipart(body, req.headers['content-type'], { maxParts: 1 + 2 * MAX_BATCH_DETECTIONS });
    if (!parsed.ok) return reply(400, { error: { code: 'bad_multipart', message: parsed.reason } });
    const parts = new Map<string, MultipartPart>(parsed.parts.flatMap((p) => (p.name ? [[p.name, p] as const] : [])));
    let metadata: unknown;
    try {
      metadata = JSON.parse(Buffer.from(parts.get(BATCH_METADATA_PART)?.body ?? new Uint8Array()).toString('utf8'));
    } catch {
      return reply(400, { error: { code: 'bad_metadata', message: 'metadata is not JSON' } });
    }
    const meta = batchMetadataSchema.safeParse(metadata);
    if (!meta.success) return reply(400, { error: { code: 'bad_metadata', message: meta.error.message } });
    const detections = meta.data.detections.map((raw) => batchDetectionSchema.safeParse(raw));
    log.detectionIds = detections.map((d) => (d.success ? d.data.detection_id : '?'));
    if (this.badRequestPlate && detections.some((d) => d.success && d.data.plate.text === this.badRequestPlate)) {
      return reply(400, { error: { code: 'bad_request', message: 'unprocessable detection in batch' } });
    }
    const scripted = this.script.shift();
    if (scripted && 'hang' in scripted) {
      this.hung.push(res);
      return;
    }
    if (scripted && 'status' in scripted) return reply(scripted.status, scripted.body ?? '', scripted.headers);
    const results: BatchItemResult[] = [];
    detections.forEach((d, index) => {
      if (!d.success) return results.push({ index, detection_id: null, status: 'rejected', reason: 'invalid detection' });
      const det = d.data;
      if (this.omit.has(det.detection_id)) return;
      const images: Record<string, Buffer> = {};
      for (const kind of IMAGE_KINDS) {
        const ref = det.images?.[kind];
        if (!ref) continue;
        const bytes = Buffer.from(parts.get(ref.part)?.body ?? new Uint8Array());
        const sum = createHash('sha256').update(bytes).digest('hex');
        if (bytes.byteLength !== ref.size || sum !== ref.sha256) {
          return results.push({ index, detection_id: det.detection_id, status: 'rejected', reason: `image ${kind} does not match its sha256` });
        }
        images[kind] = bytes;
      }
      if (this.rejectPlate === det.plate.text) {
        return results.push({ index, detection_id: det.detection_id, status: 'rejected', reason: 'plate refused by policy' });
      }
      const id = String(this.arrivals.indexOf(det.detection_id) + 1);
      if (this.stored.has(det.detection_id)) return results.push({ index, detection_id: det.detection_id, status: 'duplicate', id });
      this.stored.set(det.detection_id, { detection: det, images });
      this.arrivals.push(det.detection_id);
      return results.push({ index, detection_id: det.detection_id, status: 'stored', id: String(this.arrivals.length) });
    });
    const accepted = results.filter((r) => r.status !== 'rejected').length;
    if (scripted && 'dropAfterStore' in scripted) {
      log.status = -1;
      res.destroy();
      return;
    }
    if (this.backpressure) return reply(202, { accepted, results, backpressure: this.backpressure });
    return reply(201, { accepted, results });
  }

  private heartbeat(apiKey: string | undefined, res: ServerResponse): void {
    const answer = (status: number, json: unknown): void => {
      this.heartbeats.push(status);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    if (apiKey && this.replacedKeys.has(apiKey)) return answer(401, REPLACED_BODY);
    if (!apiKey || !this.keys.has(apiKey)) return answer(401, { error: { code: 'unauthorized', message: 'invalid API key' } });
    return answer(200, { pending_commands: [], heartbeat_interval_seconds: 60, collector_status: this.suspended ? 'disabled' : 'active' });
  }
}

/** The refusal bodies of shared/protocol/collector.ts `COLLECTOR_REFUSAL_REASONS`, as the hub sends them. */
export const SUSPENDED_BODY = { error: { code: 'forbidden', message: 'collector suspended by the hub', reason: 'collector_suspended' } };
export const REPLACED_BODY = { error: { code: 'unauthorized', message: 'this collector was replaced by another device', reason: 'collector_replaced' } };

/** A loopback port with nothing listening (bound once, then released). */
export async function unusedPort(): Promise<number> {
  const hub = new HubDouble();
  const port = await hub.listen(0);
  await hub.close();
  return port;
}
