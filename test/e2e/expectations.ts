import { normalizePlateText } from '../../shared/src/detection/normalize.ts';
import type { DeliveredRead } from '../../scripts/simulators/plates.ts';

/**
 * What the hub must hold after the cameras delivered `reads`: one detection per plate
 * sighting. A vendor_a re-read of the same plate within 1 s is one sighting (the appliance
 * keeps the best read of a 30 s window), and `unknown` reads are no detection at all.
 * Simulated plates are random, so the normalized plate names its sighting.
 */
export interface Sighting {
  plate: string;
  ids: Set<string>;
  /** Images of each read, by detection id: the hub must hold those of the read it kept. */
  reads: Map<string, { crop?: string; scene?: string }>;
  cropHashes: Set<string>;
  sceneHashes: Set<string>;
}

export function expectedSightings(reads: readonly DeliveredRead[]): Map<string, Sighting> {
  const out = new Map<string, Sighting>();
  for (const read of reads) {
    if (read.unknown) continue;
    const plate = normalizePlateText(read.plate);
    if (!plate) continue;
    const s = out.get(plate) ?? { plate, ids: new Set(), reads: new Map(), cropHashes: new Set(), sceneHashes: new Set() };
    s.ids.add(read.detectionId);
    s.reads.set(read.detectionId, {
      ...(read.images.plateCrop ? { crop: read.images.plateCrop } : {}),
      ...(read.images.fullScene ? { scene: read.images.fullScene } : {}),
    });
    if (read.images.plateCrop) s.cropHashes.add(read.images.plateCrop);
    if (read.images.fullScene) s.sceneHashes.add(read.images.fullScene);
    out.set(plate, s);
  }
  return out;
}

/** Detection ids of the reads that are detections at all (an `unknown` read never is). */
export function readIds(reads: readonly DeliveredRead[]): string[] {
  return reads.filter((r) => !r.unknown && normalizePlateText(r.plate)).map((r) => r.detectionId);
}

export interface HubRow {
  detection_id: string;
  plate_number: string;
  crop_image_hash: string | null;
  full_image_hash: string | null;
  [key: string]: unknown;
}

/** Differences between what the hub holds and the sightings; empty when they match. */
export function compareWithHub(expected: Map<string, Sighting>, rows: readonly HubRow[], allowedExtra: Map<string, Sighting> = new Map()): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    seen.set(row.plate_number, (seen.get(row.plate_number) ?? 0) + 1);
    const sighting = expected.get(row.plate_number) ?? allowedExtra.get(row.plate_number);
    if (!sighting) {
      problems.push(`hub has ${row.plate_number} (${row.detection_id}) that no camera produced`);
      continue;
    }
    if (!sighting.ids.has(row.detection_id)) problems.push(`${row.plate_number}: hub id ${row.detection_id} is not one of the camera's ids`);
    if (row.crop_image_hash && !sighting.cropHashes.has(row.crop_image_hash)) problems.push(`${row.plate_number}: plate crop hash differs`);
    if (row.full_image_hash && !sighting.sceneHashes.has(row.full_image_hash)) problems.push(`${row.plate_number}: scene hash differs`);
    // A re-read within the dedupe window may replace the first; the hub then holds the kept
    // read's images (the appliance keeps an image kind the better read lacks).
    const kept = sighting.reads.get(row.detection_id);
    if (kept?.crop && !row.crop_image_hash) problems.push(`${row.plate_number}: plate crop missing`);
    if (kept?.scene && !row.full_image_hash) problems.push(`${row.plate_number}: scene image missing`);
  }
  for (const [plate, count] of seen) if (count > 1) problems.push(`${plate} stored ${count} times`);
  for (const plate of expected.keys()) if (!seen.has(plate)) problems.push(`${plate} delivered by a camera but missing on the hub`);
  return problems;
}
