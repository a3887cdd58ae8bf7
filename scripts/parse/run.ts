import { detectAdapter, getAdapter } from '../../shared/src/adapters/factory.ts';
import type { Adapter, AdapterContext, CameraIdentity, ParseInput, ParseOutcome, PacketStream } from '../../shared/src/adapters/types.ts';
import { PLATES_ROOT } from '../../shared/src/adapters/vendor-a/plates.ts';
import { decodeMessage } from '../../shared/src/adapters/vendor-b/message.ts';
import { sniffRootName } from '../../shared/src/adapters/xml.ts';
import { normalizeMac } from '../../shared/src/detection/normalize.ts';
import type { ParseArgs } from './args.ts';
import { describeDetection } from './report.ts';
import { looksLikeUpdatePacket, sniffContentType } from './sniff.ts';

export interface ParseRun {
  detections: Record<string, unknown>[];
  warnings: string[];
  failure?: string;
}

/** vendor_b bootstrap (`cameras[].id/.mac/.name`) -> camera id lookup. */
export function camerasFromBootstrap(json: unknown): Map<string, CameraIdentity> | { error: string } {
  const cameras = (json as { cameras?: unknown } | null)?.cameras;
  if (!Array.isArray(cameras)) return { error: 'bootstrap has no cameras[] array' };
  const map = new Map<string, CameraIdentity>();
  for (const camera of cameras as unknown[]) {
    const { id, mac, name } = (camera ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string') continue;
    const normalized = typeof mac === 'string' ? normalizeMac(mac) : undefined;
    map.set(id, { id, ...(normalized ? { mac: normalized } : {}), ...(typeof name === 'string' ? { name } : {}) });
  }
  return map;
}

/**
 * `--vendor auto` for a file: the ingest route's `auto`, plus vendor_a pull lists. No camera
 * pushes a `Plates` document, so the route refuses one, but a captured pull response is a
 * natural thing to feed this command.
 */
function detectFileAdapter(input: ParseInput): Adapter | undefined {
  return detectAdapter(input) ?? (sniffRootName(input.body) === PLATES_ROOT ? getAdapter('vendor_a') : undefined);
}

/** Run the parse command over files read by `read` (injected so tests need no files). */
export async function runParse(args: ParseArgs, read: (path: string) => Promise<Uint8Array>): Promise<ParseRun> {
  const run: ParseRun = { detections: [], warnings: [] };
  const context: AdapterContext = {
    ...(args.timezone ? { timezone: args.timezone } : {}),
    ...(args.cameraMac ? { camera: { mac: args.cameraMac } } : {}),
  };
  if (args.camerasFile) {
    let cameras: ReturnType<typeof camerasFromBootstrap>;
    try {
      cameras = camerasFromBootstrap(JSON.parse(Buffer.from(await read(args.camerasFile)).toString('utf8')));
    } catch (error) {
      return { ...run, failure: `${args.camerasFile}: cannot read bootstrap (${(error as Error).message})` };
    }
    if (!(cameras instanceof Map)) return { ...run, failure: `${args.camerasFile}: ${cameras.error}` };
    context.cameras = cameras;
  }
  // One stream per adapter, so packets of one connection spread over several files merge.
  const streams = new Map<string, PacketStream>();
  const collect = (file: string, outcome: ParseOutcome): void => {
    for (const issue of outcome.errors) {
      run.warnings.push(`${file}${issue.item === undefined ? '' : ` item ${issue.item}`}: ${issue.reason}`);
    }
    run.detections.push(...outcome.detections.map(describeDetection));
  };

  for (const file of args.files) {
    let body: Uint8Array;
    try {
      body = await read(file);
    } catch (error) {
      return { ...run, failure: `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    const contentType = args.contentType ?? sniffContentType(body);
    // A file an operator reads is a camera's own reply, not a body posted by a stranger.
    const input = { body, origin: 'pulled' as const, ...(contentType ? { contentType } : {}) };
    if (!args.contentType && args.vendor !== 'vendor_a' && looksLikeUpdatePacket(body)) {
      // docs/camera-formats.md "vendor_b updates WebSocket": a packet is valid only if its length
      // is exactly 8 + size1 + 8 + size2. The runtime drops such a packet and keeps the socket;
      // this command is asked about one file, so it says the file cannot be parsed (exit 2) and
      // why.
      const packet = decodeMessage(body);
      if (!packet.ok) return { ...run, failure: `${file}: vendor_b packet cannot be parsed: ${packet.reason}` };
    }
    const adapter = args.vendor === 'auto' ? detectFileAdapter(input) : getAdapter(args.vendor);
    if (!adapter) return { ...run, failure: `${file}: payload matches no known camera vendor` };
    if (adapter.openStream && !args.contentType && looksLikeUpdatePacket(body)) {
      let stream = streams.get(adapter.type);
      if (!stream) {
        stream = adapter.openStream(context);
        streams.set(adapter.type, stream);
      }
      const outcome = stream.push(body);
      if (outcome.failure) return { ...run, failure: `${file}: ${outcome.failure}` };
      collect(file, outcome);
      continue;
    }
    const outcome = adapter.parse(input, context);
    if (outcome.failure) return { ...run, failure: `${file}: ${outcome.failure}` };
    collect(file, outcome);
  }
  for (const [type, stream] of streams) collect(`${type} stream`, stream.flush());
  return run;
}
