/**
 * Where ordinary cameras serve a single JPEG when the installer gives no snapshot URL
 * (docs/ordinary-cameras.md "Snapshot URL"). Tried in this order; the first that answers 200
 * with a JPEG is kept for the life of the runner. Hikvision and its OEMs first (the commonest
 * on sites that already have cameras), then Dahua and its OEMs, Axis, and the generic paths of
 * many cheaper cameras.
 */
export const VENDOR_SNAPSHOT_PATHS = [
  '/ISAPI/Streaming/channels/101/picture',
  '/cgi-bin/snapshot.cgi',
  '/axis-cgi/jpg/image.cgi',
  '/snapshot.jpg',
  '/snap.jpg',
] as const;

/** The URLs to try: the configured one alone, else each vendor path on the base URL. */
export function snapshotCandidates(configured: string | undefined, baseUrl: string): string[] {
  if (configured !== undefined) return [configured.includes('://') ? configured : `${baseUrl}${configured}`];
  return VENDOR_SNAPSHOT_PATHS.map((path) => `${baseUrl}${path}`);
}
