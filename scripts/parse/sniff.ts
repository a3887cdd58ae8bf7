/**
 * What the parse command can tell from a captured file alone, when no `--content-type` is
 * given: a multipart body starts with its boundary line; a vendor_b update packet starts with
 * an 8-byte header whose first byte is the action-frame type (1).
 */
export function sniffContentType(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 200)).toString('latin1');
  const boundary = /^--([^\r\n]{1,100})\r?\n/.exec(head);
  if (boundary?.[1]) return `multipart/form-data; boundary=${boundary[1].trim()}`;
  const text = head.trimStart();
  if (text.startsWith('<')) return 'application/xml';
  if (text.startsWith('{') || text.startsWith('[')) return 'application/json';
  return undefined;
}

/** True for bytes that look like a vendor_b binary update packet (header 1, format 1-3, deflated 0/1). */
export function looksLikeUpdatePacket(body: Uint8Array): boolean {
  return body.length >= 16 && body[0] === 1 && (body[1] ?? 0) >= 1 && (body[1] ?? 0) <= 3 && (body[2] === 0 || body[2] === 1) && body[3] === 0;
}
