import { statfs } from 'node:fs/promises';

/**
 * The buffer's disk cap. The buffer holds 7 days; a fixed 2 GiB held only 6-8 hours
 * of images at 50 detections/min (~100 KB each: ~7 GB a day). So unless the configuration
 * sets `buffer.disk_cap_bytes`, the cap is sized from the data partition at start:
 *
 *   cap = min(60 % of the partition, space available now + the buffer already there - 1 GiB)
 *
 * 60 %: the rest is the OS, logs and the SQLite WAL/temp files a big transaction needs.
 * The 1 GiB reserve keeps a partition shared with other data from filling up. Never below
 * 256 MiB (a tiny partition still gets a working buffer; the diagnostics then warn).
 * docs/setup-page.md "Disk cap". Pure apart from `statfs`, which is injectable.
 */
export interface DiskSpace {
  /** Bytes of the partition. */
  totalBytes: number;
  /** Bytes an unprivileged writer may still use. */
  availableBytes: number;
}

export interface DiskCap {
  bytes: number;
  source: 'configured' | 'partition';
  partition?: DiskSpace;
}

const GiB = 1024 ** 3;
export const MIN_AUTO_CAP_BYTES = 256 * 1024 ** 2;
export const PARTITION_SHARE = 0.6;
export const RESERVE_BYTES = GiB;

export async function partitionSpace(dir: string): Promise<DiskSpace> {
  const s = await statfs(dir);
  return { totalBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
}

/** Pure: the cap for a partition, given what the buffer already occupies. */
export function capForPartition(space: DiskSpace, bufferBytes = 0): number {
  const share = Math.floor(space.totalBytes * PARTITION_SHARE);
  const usable = space.availableBytes + bufferBytes - RESERVE_BYTES;
  return Math.max(MIN_AUTO_CAP_BYTES, Math.min(share, usable));
}

export async function resolveDiskCap(
  configured: number | undefined,
  dataDir: string,
  diskSpace: (dir: string) => Promise<DiskSpace> = partitionSpace,
  bufferBytes = 0,
): Promise<DiskCap> {
  if (configured !== undefined) return { bytes: configured, source: 'configured' };
  const partition = await diskSpace(dataDir);
  return { bytes: capForPartition(partition, bufferBytes), source: 'partition', partition };
}
