/**
 * A pure multipart/form-data parser (RFC 7578 / RFC 2046) over bytes, for untrusted bodies:
 * camera pushes and the hub's batch upload. Vendor-neutral on purpose.
 *
 * Tolerances, from captured camera traffic (docs/camera-formats.md "vendor_a push transport"):
 * lines may end in LF only; part `Content-Length` headers are ignored (one vendor counts them
 * differently, others omit them); `;filename=` without a space and a trailing `;` are
 * accepted; a part may be empty. A body without its closing `--boundary--` is refused:
 * its last part may be cut short, and a cut JPEG must not be stored as evidence.
 */

export interface MultipartPart {
  /** Header names lowercased; a repeated header keeps its first value. */
  headers: Readonly<Record<string, string>>;
  name?: string;
  filename?: string;
  /** The part's `Content-Type` as sent (parameters included). */
  contentType?: string;
  /** `Content-ID` without surrounding `<>`. */
  contentId?: string;
  /** The part's bytes: a view into the input, not a copy. May be empty. */
  body: Uint8Array;
}

export interface MultipartLimits {
  /** Default 64. */
  maxParts?: number;
  /** Maximum body size in bytes. Default 32 MiB. */
  maxBytes?: number;
  /** Maximum size of one part's header block. Default 16 KiB. */
  maxHeaderBytes?: number;
}

export type MultipartResult = { ok: true; parts: MultipartPart[] } | { ok: false; reason: string };

const DEFAULT_MAX_PARTS = 64;
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;

/** `multipart/form-data; boundary=x` -> `multipart/form-data` (lowercase); '' when absent. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * Parameters of a header value such as `form-data; name="a"; filename=b;`. Names are
 * lowercased; quoted values may contain `;` and backslash escapes.
 */
export function headerParams(value: string): Record<string, string> {
  const params: Record<string, string> = {};
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(value)) !== null) {
    const key = (match[1] ?? '').toLowerCase();
    const raw = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '').trim();
    if (key && !(key in params)) params[key] = raw;
  }
  return params;
}

/** The boundary from a multipart Content-Type, quotes removed; undefined when missing or unusable. */
export function boundaryFrom(contentType: string | undefined): string | undefined {
  if (!mediaType(contentType).startsWith('multipart/')) return undefined;
  const boundary = headerParams(contentType ?? '').boundary;
  // RFC 2046 allows 1-70 characters; allow a little more for lax senders, never CR/LF.
  if (!boundary || boundary.length > 200 || /[\r\n]/.test(boundary)) return undefined;
  return boundary;
}

/** Parse a multipart body using the boundary of its Content-Type. Never throws. */
export function parseMultipart(body: Uint8Array, contentType: string | undefined, limits: MultipartLimits = {}): MultipartResult {
  if (!mediaType(contentType).startsWith('multipart/')) return { ok: false, reason: 'Content-Type is not multipart' };
  const boundary = boundaryFrom(contentType);
  if (!boundary) return { ok: false, reason: 'multipart Content-Type has no usable boundary parameter' };
  return parseMultipartBody(body, boundary, limits);
}

/** Parse a multipart body with a known boundary. Never throws. */
export function parseMultipartBody(body: Uint8Array, boundary: string, limits: MultipartLimits = {}): MultipartResult {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  if (body.byteLength > maxBytes) return { ok: false, reason: `multipart body of ${body.byteLength} bytes exceeds the ${maxBytes}-byte cap` };
  try {
    return splitParts(Buffer.from(body.buffer, body.byteOffset, body.byteLength), boundary, limits);
  } catch (error) {
    return { ok: false, reason: `malformed multipart: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function splitParts(buf: Buffer, boundary: string, limits: MultipartLimits): MultipartResult {
  const maxParts = limits.maxParts ?? DEFAULT_MAX_PARTS;
  const maxHeaderBytes = limits.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  const findDelimiter = delimiterFinder(buf, boundary);

  // The first delimiter opens the body or follows a preamble line.
  let at = buf.subarray(0, dashBoundary.length).equals(dashBoundary) ? 0 : findDelimiter(0);
  if (at < 0) return { ok: false, reason: 'multipart body has no opening boundary' };
  if (buf[at] === LF) at += 1;
  const parts: MultipartPart[] = [];
  for (;;) {
    let cursor = at + dashBoundary.length;
    if (buf[cursor] === DASH && buf[cursor + 1] === DASH) return { ok: true, parts };
    if (parts.length >= maxParts) return { ok: false, reason: `multipart body has more than ${maxParts} parts` };
    cursor = skipLineEnd(buf, cursor);
    if (cursor < 0) return { ok: false, reason: 'multipart boundary line is malformed' };
    const head = readHeaderBlock(buf, cursor, maxHeaderBytes);
    if ('reason' in head) return { ok: false, reason: head.reason };
    const next = findDelimiter(Math.max(head.end - 1, 0));
    if (next < 0) return { ok: false, reason: 'multipart body has no closing boundary (truncated?)' };
    let bodyEnd = next >= head.end && buf[next - 1] === CR ? next - 1 : next;
    if (bodyEnd < head.end) bodyEnd = head.end;
    parts.push(makePart(head.lines, buf.subarray(head.end, bodyEnd)));
    at = next + 1;
  }
}

/**
 * Finds the next `\n--boundary` that is a real delimiter: followed by `--`, a line end or
 * transport padding. ONE native `indexOf` pass for the common prefix, each candidate's
 * ending checked in place (an earlier version searched each of the five endings as its own
 * needle: five passes over a 4.3 MB batch). Linear even for a body full of near-delimiters
 * (`\n--boundaryX` a million times): candidates cannot overlap, since a boundary holds no
 * line feed, and each is checked once.
 */
function delimiterFinder(buf: Buffer, boundary: string): (from: number) => number {
  const prefix = Buffer.from(`\n--${boundary}`, 'latin1');
  return (from: number): number => {
    for (let at = buf.indexOf(prefix, from); at >= 0; at = buf.indexOf(prefix, at + prefix.length)) {
      if (endsDelimiter(buf, at + prefix.length)) return at;
    }
    return -1;
  };
}

/** What may follow `\n--boundary` in a delimiter: CRLF, LF, `--`, a space or a tab. */
function endsDelimiter(buf: Buffer, i: number): boolean {
  const c = buf[i];
  if (c === LF || c === 0x20 || c === 0x09) return true;
  if (c === CR) return buf[i + 1] === LF;
  return c === DASH && buf[i + 1] === DASH;
}

/** After a boundary: optional transport padding, then CRLF or LF. Returns the next index or -1. */
function skipLineEnd(buf: Buffer, from: number): number {
  let i = from;
  while (buf[i] === 0x20 || buf[i] === 0x09) i++;
  if (buf[i] === CR && buf[i + 1] === LF) return i + 2;
  if (buf[i] === LF) return i + 1;
  return -1;
}

function readHeaderBlock(buf: Buffer, from: number, maxHeaderBytes: number): { lines: string[]; end: number } | { reason: string } {
  const lines: string[] = [];
  let i = from;
  for (;;) {
    const lineEnd = buf.indexOf(LF, i);
    if (lineEnd < 0 || lineEnd - from > maxHeaderBytes) {
      return { reason: lineEnd < 0 ? 'multipart part headers are not terminated' : 'multipart part headers are too large' };
    }
    const line = buf.toString('utf8', i, buf[lineEnd - 1] === CR && lineEnd - 1 >= i ? lineEnd - 1 : lineEnd);
    i = lineEnd + 1;
    if (line === '') return { lines, end: i };
    // Obsolete header folding: a line starting with white space continues the previous one.
    const last = lines.length - 1;
    if (/^[ \t]/.test(line) && last >= 0) lines[last] = `${lines[last] ?? ''} ${line.trim()}`;
    else lines.push(line);
  }
}

function makePart(lines: readonly string[], body: Uint8Array): MultipartPart {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name && !(name in headers)) headers[name] = line.slice(colon + 1).trim();
  }
  const part: MultipartPart = { headers, body };
  const disposition = headers['content-disposition'];
  if (disposition !== undefined) {
    const params = headerParams(disposition);
    if (params.name !== undefined) part.name = params.name;
    const filename = params.filename ?? decodeExtValue(params['filename*']);
    if (filename !== undefined) part.filename = filename;
  }
  if (headers['content-type'] !== undefined) part.contentType = headers['content-type'];
  const contentId = headers['content-id'];
  if (contentId !== undefined) part.contentId = contentId.replace(/^<(.*)>$/, '$1').trim();
  return part;
}

/** RFC 5987 `UTF-8''name%20x` -> `name x`; undefined when absent or undecodable. */
function decodeExtValue(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^[\w-]*'[\w-]*'(.*)$/.exec(value);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1] ?? '');
  } catch {
    return undefined;
  }
}
