/**
 * The evidence export's manifest and its checks (docs/evidence-export.md). Pure: bytes and
 * keys in, verdicts out; the zip reading and writing live in build.ts and verify.ts.
 */
import nacl from 'tweetnacl';
import { canonicalDetectionFields, computeRecordHash } from '../db/hash-chain.ts';
import { sha256Hex } from '../images/image-store.ts';

export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';
export const PUBLIC_KEY_FILE = 'hub-public-key.txt';
export const CHAIN_FILE = 'chain.json';
export const FORMAT = 'alpr-evidence/1';

export interface ManifestFile {
  name: string;
  sha256: string;
  size: number;
}

export interface Manifest {
  format: typeof FORMAT;
  created_at: string;
  created_by: string;
  reason: string;
  query: Record<string, string>;
  detections: number;
  hub_public_key: string;
  files: ManifestFile[];
  /**
   * Images the detections reference that retention removed after their year
   * (docs/retention.md): named here, signed with the rest, and absent from `files`.
   */
  images_removed_by_retention?: string[];
}

/** One detection's place in its collector's chain, with what the record hash covers. */
export interface ChainEntry {
  id: string;
  collector_id: string;
  chain_seq: string;
  prev_hash: string;
  record_hash: string;
  /** The canonical fields (docs/database.md "Hash chain"): record_hash = SHA-256(prev_hash || canonical). */
  canonical: string;
}

export function chainEntry(row: {
  id: string;
  collector_id: string;
  detection_id: string;
  camera_id: string;
  plate_number: string;
  plate_normalized: string;
  confidence: number;
  captured_at: Date;
  direction: string;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  chain_seq: string;
  prev_hash: string;
  record_hash: string;
}): ChainEntry {
  const canonical = canonicalDetectionFields({
    collectorId: row.collector_id,
    detectionId: row.detection_id,
    cameraId: row.camera_id,
    plateNumber: row.plate_number,
    plateNormalized: row.plate_normalized,
    confidence: Number(row.confidence),
    capturedAt: new Date(row.captured_at),
    direction: row.direction,
    fullImageHash: row.full_image_hash?.trim() ?? null,
    cropImageHash: row.crop_image_hash?.trim() ?? null,
    chainSeq: row.chain_seq,
  });
  return { id: row.id, collector_id: row.collector_id, chain_seq: row.chain_seq, prev_hash: row.prev_hash, record_hash: row.record_hash, canonical };
}

export function signManifest(manifestBytes: Uint8Array, secretKey: Uint8Array): string {
  return Buffer.from(nacl.sign.detached(manifestBytes, secretKey)).toString('base64');
}

export interface Verification {
  ok: boolean;
  /** Plain-words findings, one per problem: what is altered, missing or unexpected. */
  problems: string[];
  /** Whose key the signature was checked with. */
  keySource: 'given' | 'in the export';
  detections: number;
}

/**
 * Checks an export's files (name -> bytes): the manifest's signature, every listed file's
 * SHA-256 and size, files the manifest does not list, and every detection's record hash
 * recomputed from its canonical fields, whose image hashes must be the images' own.
 */
export function verifyExport(files: ReadonlyMap<string, Uint8Array>, givenPublicKey?: Uint8Array): Verification {
  const problems: string[] = [];
  const manifestBytes = files.get(MANIFEST_FILE);
  const signature = files.get(SIGNATURE_FILE);
  const embeddedKey = files.get(PUBLIC_KEY_FILE);
  const keySource: Verification['keySource'] = givenPublicKey ? 'given' : 'in the export';
  if (!manifestBytes) return { ok: false, problems: [`${MANIFEST_FILE} is missing`], keySource, detections: 0 };
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as Manifest;
  } catch {
    return { ok: false, problems: [`${MANIFEST_FILE} is not JSON`], keySource, detections: 0 };
  }
  const key = givenPublicKey ?? (embeddedKey ? Buffer.from(Buffer.from(embeddedKey).toString('utf8').trim(), 'base64') : undefined);
  if (!signature) problems.push(`${SIGNATURE_FILE} is missing`);
  else if (!key || key.length !== 32) problems.push('no usable public key to check the signature with');
  else if (!nacl.sign.detached.verify(manifestBytes, Buffer.from(Buffer.from(signature).toString('utf8').trim(), 'base64'), key)) {
    problems.push(`${MANIFEST_FILE}: the signature does not match (the manifest was altered, or signed by another hub)`);
  }
  if (givenPublicKey && manifest.hub_public_key !== Buffer.from(givenPublicKey).toString('base64'))
    problems.push('the manifest names another hub key than the one given');
  const listed = new Set<string>();
  for (const entry of manifest.files ?? []) {
    listed.add(entry.name);
    const bytes = files.get(entry.name);
    if (!bytes) problems.push(`${entry.name}: missing`);
    else if (bytes.byteLength !== entry.size || sha256Hex(bytes) !== entry.sha256)
      problems.push(`${entry.name}: altered (SHA-256 ${sha256Hex(bytes)} is not the manifest's ${entry.sha256})`);
  }
  for (const name of files.keys()) {
    if (!listed.has(name) && name !== MANIFEST_FILE && name !== SIGNATURE_FILE && name !== PUBLIC_KEY_FILE) problems.push(`${name}: not in the manifest`);
  }
  const chainBytes = files.get(CHAIN_FILE);
  let detections = 0;
  if (chainBytes) {
    try {
      const chain = JSON.parse(Buffer.from(chainBytes).toString('utf8')) as ChainEntry[];
      detections = chain.length;
      // Named by the signed manifest as removed after their year: absent on purpose.
      const retired = new Set(manifest.images_removed_by_retention ?? []);
      for (const link of chain) {
        if (computeRecordHash(link.prev_hash, link.canonical) !== link.record_hash)
          problems.push(`detection ${link.id}: its fields do not give its record hash`);
        const fields = JSON.parse(link.canonical) as Array<string | null>;
        for (const hash of [fields[8], fields[9]]) {
          if (hash && !retired.has(hash) && !files.has(`images/${hash}.jpg`) && !files.has(`images/${hash}.png`))
            problems.push(`detection ${link.id}: image ${hash} is not in the export`);
        }
      }
    } catch {
      problems.push(`${CHAIN_FILE} is not readable`);
    }
  } else problems.push(`${CHAIN_FILE} is missing`);
  return { ok: problems.length === 0, problems, keySource, detections };
}
