import { z } from 'zod';
import { PLATE_REGIONS } from '@alpr/shared/detection/plate-regions';

/**
 * The fields of an ordinary camera (`vendor = "snapshot"`, docs/ordinary-cameras.md), spread
 * into the camera schema (config.ts), and the rules between them. Written here so config.ts
 * stays one read.
 */

/** 10 frames a second is more than a 2-core box reads; 0.2 is one frame every 5 s (a slow gate). */
export const MAX_FRAMES_PER_SECOND = 10;
export const DEFAULT_FRAMES_PER_SECOND = 4;

export const snapshotFields = {
  /**
   * Where the camera serves one JPEG: an absolute `http(s)://` URL, or a path on `host`
   * (`/cgi-bin/snapshot.cgi`). Absent: the usual vendor paths are tried in turn (snapshot-urls.ts).
   */
  snapshotUrl: z
    .string()
    .max(2000)
    .regex(/^(https?:\/\/[^\s]+|\/[^\s]*)$/, 'snapshotUrl: an http(s):// URL or a path starting with /')
    .optional(),
  /** `rtsp://` stream, read through ffmpeg where ffmpeg is installed; takes the place of the snapshot URL. */
  rtspUrl: z
    .string()
    .max(2000)
    .regex(/^rtsps?:\/\/[^\s]+$/, 'rtspUrl: an rtsp:// or rtsps:// URL')
    .optional(),
  /** Frames taken a second (default 4). */
  framesPerSecond: z.number().min(0.2).max(MAX_FRAMES_PER_SECOND).default(DEFAULT_FRAMES_PER_SECOND),
  /**
   * Plate formats the reader scores against (absent: plate-likeness alone). Only the regions the
   * reader knows: another code would be read as no region without a word, so it is refused.
   */
  region: z.enum(PLATE_REGIONS, { error: `region: one of ${PLATE_REGIONS.join(', ')} (the plate formats the reader knows), or none` }).optional(),
  /** A passage ends after this long without a read of its plate (default 3 s). */
  passageGapMs: z.number().int().min(200).max(60_000).default(3_000),
  /** Mean grey difference (0-255) of two thumbnails above which a frame is read (default 4). */
  changeThreshold: z.number().min(0).max(255).default(4),
};

interface SnapshotShape {
  vendor: string;
  mode: string;
  host?: string | undefined;
  snapshotUrl?: string | undefined;
  rtspUrl?: string | undefined;
}

/** True when the camera's frames come from an absolute URL, so no `host` is needed. */
export const hasOwnUrl = (c: SnapshotShape): boolean => c.rtspUrl !== undefined || (c.snapshotUrl?.includes('://') ?? false);

export function snapshotProblems(c: SnapshotShape): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const snapshotOnly = ['snapshotUrl', 'rtspUrl'] as const;
  if (c.vendor !== 'snapshot') {
    for (const field of snapshotOnly) if (c[field] !== undefined) problems.push({ path: field, message: `${field} is for vendor "snapshot" only` });
    return problems;
  }
  if (c.mode !== 'pull') problems.push({ path: 'mode', message: 'snapshot: mode must be pull (this device fetches the frames)' });
  if (!c.host && !hasOwnUrl(c)) problems.push({ path: 'host', message: 'snapshot needs host, an absolute snapshotUrl, or rtspUrl' });
  return problems;
}
