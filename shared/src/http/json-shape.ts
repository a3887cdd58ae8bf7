/**
 * Shape limits for JSON, checked on the raw bytes before `JSON.parse` so that no request
 * under the body cap can make a server do unbounded work on it (docs/security.md "Hostile
 * input", docs/performance.md). One linear pass, no allocation per element:
 * - depth: a 5,000-deep admin config overflowed the stack in `JSON.stringify` (a 500);
 * - items per array or object: a vendor_b push with ~470,000 numbers in `smartDetectTypes`
 *   held the appliance's only thread for 6.9 s while zod built one issue per element.
 */
export interface JsonShapeLimits {
  maxDepth: number;
  /** Members of one array or object. */
  maxItems: number;
  /**
   * Array elements in the whole document: per-container caps alone still let 1,000 arrays
   * of 1,000 numbers fit in 2 MB. (Object members are not counted: validators look up the
   * keys they know and skip the rest, while each array element is visited.)
   */
  maxTotalItems: number;
}

/**
 * Edge defaults for both servers. Real bodies nest at most ~8 deep (a collector config,
 * a vendor_b event) and the longest legitimate array is a hub batch (50 detections) or a
 * configuration's camera list; 32 and 1,000 leave ample room and keep the worst case of
 * per-element validation in the low milliseconds (measured in `npm run bench`).
 */
export const EDGE_JSON_LIMITS: JsonShapeLimits = { maxDepth: 32, maxItems: 1000, maxTotalItems: 10_000 };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

const isSpace = (b: number): boolean => b === SPACE || b === TAB || b === LF || b === CR;

/**
 * Why JSON text breaks the limits, or undefined. Counts separators per open container, so
 * malformed JSON is not judged here (`JSON.parse` does that afterwards); the count is exact
 * for well-formed input.
 */
export function jsonShapeProblem(bytes: Uint8Array, limits: JsonShapeLimits = EDGE_JSON_LIMITS): string | undefined {
  const items = new Uint32Array(limits.maxDepth + 1);
  const empty = new Uint8Array(limits.maxDepth + 1);
  const isArray = new Uint8Array(limits.maxDepth + 1);
  let depth = 0;
  let total = 0;
  const tooMany = `a JSON document holds more than ${limits.maxTotalItems} array elements`;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === BACKSLASH) i += 1;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (isSpace(b)) continue;
    if (depth > 0 && empty[depth] === 1 && b !== CLOSE_ARRAY && b !== CLOSE_OBJECT) {
      empty[depth] = 0;
      items[depth] = 1;
      if (isArray[depth] === 1 && ++total > limits.maxTotalItems) return tooMany;
    }
    if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      depth += 1;
      if (depth > limits.maxDepth) return `JSON nests deeper than ${limits.maxDepth} levels`;
      items[depth] = 0;
      empty[depth] = 1;
      isArray[depth] = b === OPEN_ARRAY ? 1 : 0;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      if (depth > 0) depth -= 1;
    } else if (b === COMMA && depth > 0) {
      items[depth] = (items[depth] as number) + 1;
      if ((items[depth] as number) > limits.maxItems) return `a JSON array or object holds more than ${limits.maxItems} items`;
      if (isArray[depth] === 1 && ++total > limits.maxTotalItems) return tooMany;
    }
  }
  return undefined;
}
