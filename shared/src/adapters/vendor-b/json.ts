import type { Result } from './packet.ts';

/**
 * Nesting allowed in a vendor_b JSON payload. Real events nest about 6 deep (list, event,
 * metadata, detectedThumbnails, thumbnail, attributes, value); 64 is generous. The check
 * runs before JSON.parse because V8 parses deep input without a stack overflow but still
 * allocates one array per `[`: 5 MB of brackets cost ~300 ms and much memory per parse.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** Linear scan: true when brackets outside strings nest deeper than `maxDepth`. */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === BACKSLASH) i += 1;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (OPENERS.has(b)) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (CLOSERS.has(b)) {
      depth -= 1;
    }
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 JSON with the depth limit; never throws. */
export function parseJsonBytes(bytes: Uint8Array): Result<unknown> {
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
    return { ok: false, reason: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return { ok: false, reason: 'not valid UTF-8 JSON' };
  }
}
