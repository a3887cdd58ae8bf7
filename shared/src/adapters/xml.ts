/**
 * Safe XML parsing for camera payloads (untrusted input from the LAN or the internet).
 *
 * fast-xml-parser runs with entity processing off; every document that declares a DTD or
 * an entity is refused before the parser sees it (billion laughs, external entities).
 * Only the five predefined entities and numeric character references are decoded, by our
 * own linear decoder: each reference shrinks on decoding, so nothing can expand.
 * Tag values stay strings (`parseTagValue: false`): a 25-digit vendor_a `picName` is
 * larger than 2^53 and must not become a number. Namespace prefixes are removed and
 * attributes ignored, so callers address elements by local name only.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export type XmlValue = string | XmlElement | XmlValue[];
export interface XmlElement {
  [localName: string]: XmlValue;
}

export interface XmlParseOptions {
  /** Maximum document size in bytes (UTF-8). Default 1 MiB. */
  maxBytes?: number;
  /** Maximum count of numeric character references (`&#65;`, `&#x41;`). Default 1000. */
  maxNumericRefs?: number;
  /** Maximum element nesting. Default 64: camera documents are about 5 levels deep. */
  maxDepth?: number;
  /**
   * Maximum count of elements. Default 10,000; an alert has about 100. The parser costs a
   * few microseconds per element, so 1 MiB of `<x/>` (250k elements) would take over a second.
   */
  maxElements?: number;
  /** Local names that always become arrays, even when the element occurs once. */
  arrayTags?: readonly string[];
  /**
   * Keep attributes (read them with `attributeOf`). Off by default: camera payloads carry
   * their data in elements, and an attribute turns an element's text into `#text`. SOAP
   * answers name some things only in attributes (an ONVIF profile's `token`).
   */
  keepAttributes?: boolean;
}

export type XmlParseResult = { ok: true; doc: XmlElement; rootName: string; root: XmlValue } | { ok: false; reason: string };

export const DEFAULT_XML_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_NUMERIC_REFS = 1000;
const DEFAULT_MAX_DEPTH = 64;
const DEFAULT_MAX_ELEMENTS = 10_000;

/** Start tags (a `<` not opening an end tag, comment, CDATA, PI or declaration), counted up to `limit + 1`. */
function countStartTags(text: string, limit: number): number {
  let count = 0;
  for (let i = text.indexOf('<'); i >= 0 && count <= limit; i = text.indexOf('<', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next !== 0x2f && next !== 0x21 && next !== 0x3f) count++;
  }
  return count;
}

const DTD_PATTERN = /<!\s*(?:DOCTYPE|ENTITY)/i;
const NUMERIC_REF = /&#/g;
const REFERENCE = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g;
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decode the predefined XML entities and numeric references; anything else stays literal. */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name] ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    // XML forbids NUL and surrogates as characters; show them as U+FFFD rather than fail.
    if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return '\uFFFD';
    }
    return String.fromCodePoint(code);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** Bytes to text; a UTF-8 BOM is dropped. Invalid sequences become U+FFFD, never a throw. */
export function xmlText(body: Uint8Array | string): string {
  return typeof body === 'string' ? body.replace(/^\uFEFF/, '') : utf8.decode(body);
}

/**
 * Local name of the first element, read from the start of the document without parsing
 * it (skips the declaration, processing instructions and comments). For cheap routing.
 */
export function sniffRootName(body: Uint8Array | string): string | undefined {
  const head = xmlText(typeof body === 'string' ? body.slice(0, 8192) : body.subarray(0, 8192));
  let i = 0;
  for (let guard = 0; guard < 64; guard++) {
    while (i < head.length && /\s/.test(head[i] ?? '')) i++;
    if (head[i] !== '<') return undefined;
    if (head.startsWith('<?', i)) {
      const end = head.indexOf('?>', i + 2);
      if (end < 0) return undefined;
      i = end + 2;
    } else if (head.startsWith('<!--', i)) {
      const end = head.indexOf('-->', i + 4);
      if (end < 0) return undefined;
      i = end + 3;
    } else {
      const match = /^<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/.exec(head.slice(i, i + 300));
      return match?.[1];
    }
  }
  return undefined;
}

/** Parse an untrusted XML document. Never throws. */
export function parseXmlSafely(body: Uint8Array | string, options: XmlParseOptions = {}): XmlParseResult {
  const maxBytes = options.maxBytes ?? DEFAULT_XML_MAX_BYTES;
  const size = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
  if (size > maxBytes) return { ok: false, reason: `XML document of ${size} bytes exceeds the ${maxBytes}-byte cap` };
  const text = xmlText(body);
  if (!text.trimStart().startsWith('<')) return { ok: false, reason: 'not XML: the document does not start with <' };
  if (DTD_PATTERN.test(text)) return { ok: false, reason: 'XML with a DOCTYPE or ENTITY declaration is refused' };
  const maxRefs = options.maxNumericRefs ?? DEFAULT_MAX_NUMERIC_REFS;
  let refs = 0;
  NUMERIC_REF.lastIndex = 0;
  while (NUMERIC_REF.exec(text) !== null) {
    if (++refs > maxRefs) return { ok: false, reason: `XML has more than ${maxRefs} numeric character references` };
  }
  const maxElements = options.maxElements ?? DEFAULT_MAX_ELEMENTS;
  if (countStartTags(text, maxElements) > maxElements) return { ok: false, reason: `XML has more than ${maxElements} elements` };
  try {
    // The validator walks the text once with an explicit stack (no recursion), so it also
    // answers quickly for 100k nested elements; the parser alone accepts truncated input.
    const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
    if (valid !== true) return { ok: false, reason: `malformed XML: ${valid.err.msg} (line ${valid.err.line})` };
    const arrayTags = new Set(options.arrayTags ?? []);
    const parser = new XMLParser({
      processEntities: false,
      htmlEntities: false,
      parseTagValue: false,
      removeNSPrefix: true,
      ignoreAttributes: options.keepAttributes !== true,
      attributeNamePrefix: ATTRIBUTE_PREFIX,
      ignoreDeclaration: true,
      ignorePiTags: true,
      trimValues: true,
      // The library refuses an element once maxNestedTags enclosing elements are open.
      maxNestedTags: Math.max((options.maxDepth ?? DEFAULT_MAX_DEPTH) - 1, 0),
      isArray: (tagName) => arrayTags.has(localName(tagName)),
      tagValueProcessor: (_tag, value) => decodeXmlText(value),
    });
    const doc: unknown = parser.parse(text);
    if (!isElement(doc)) return { ok: false, reason: 'XML has no root element' };
    const names = Object.keys(doc);
    const rootName = names[0];
    if (names.length !== 1 || rootName === undefined) return { ok: false, reason: 'XML must have exactly one root element' };
    return { ok: true, doc, rootName: localName(rootName), root: doc[rootName] ?? '' };
  } catch (error) {
    return { ok: false, reason: `malformed XML: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);
const ATTRIBUTE_PREFIX = '@_';

export function isElement(value: unknown): value is XmlElement {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** All children of `node` with this local name (a namespace prefix left on a key is ignored). */
export function childrenNamed(node: XmlValue | undefined, name: string): XmlValue[] {
  if (!isElement(node)) return [];
  const out: XmlValue[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key !== name && localName(key) !== name) continue;
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return out;
}

/** First child element with this local name; undefined when absent or when it is text. */
export function childElement(node: XmlValue | undefined, name: string): XmlElement | undefined {
  return childrenNamed(node, name).find(isElement);
}

/**
 * Text of the first child with this local name. An element written `<x/>` or `<x></x>` reads
 * as ''. Undefined when absent or when the child has element content (a wrong type).
 */
export function childText(node: XmlValue | undefined, name: string): string | undefined {
  const first = childrenNamed(node, name)[0];
  if (typeof first === 'string') return first;
  // With attributes kept, `<x a="1">text</x>` is `{ '#text': 'text', '@_a': '1' }`: still text.
  if (isElement(first) && Object.keys(first).every((k) => k === '#text' || k.startsWith(ATTRIBUTE_PREFIX))) {
    const text = first['#text'];
    return typeof text === 'string' ? text : '';
  }
  return undefined;
}

/** An attribute of an element parsed with `keepAttributes` (namespace prefix ignored). */
export function attributeOf(node: XmlValue | undefined, name: string): string | undefined {
  if (!isElement(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith(ATTRIBUTE_PREFIX)) continue;
    if (localName(key.slice(ATTRIBUTE_PREFIX.length)) === name && typeof value === 'string') return value;
  }
  return undefined;
}

/** Follow a path of local names (`childText(root, 'ANPR', 'vehicleInfo', 'color')`). */
export function textAt(node: XmlValue | undefined, ...path: string[]): string | undefined {
  const last = path[path.length - 1];
  if (last === undefined) return typeof node === 'string' ? node : undefined;
  let current: XmlValue | undefined = node;
  for (const step of path.slice(0, -1)) current = childElement(current, step);
  return childText(current, last);
}
