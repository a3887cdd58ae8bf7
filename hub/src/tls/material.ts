import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { certificateSha256 } from './fingerprint.ts';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';

/**
 * The certificate the hub serves (docs/security.md "TLS by default"): the PEM files it is
 * given, else the self-signed pair it generated on its first start and keeps in its data
 * folder. Kept, not regenerated: appliances pin its SHA-256, so a new certificate on every
 * start would lock every claimed appliance out.
 */
export const GENERATED_CERT_FILE = 'hub-tls-cert.pem';
export const GENERATED_KEY_FILE = 'hub-tls-key.pem';

/** TLS 1.3 and nothing else: collector keys travel only over TLS 1.3. */
export const HUB_TLS_VERSIONS = { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } as const satisfies TlsOptions;

export interface TlsMaterial {
  key: Buffer;
  cert: Buffer;
  /** Upper-case colon-separated SHA-256 of the served certificate. */
  sha256: string;
  source: 'files' | 'generated';
  /** `generated`: this start made it (first start, or its files were removed). */
  created: boolean;
  certFile: string;
}

export async function loadTlsMaterial(input: {
  files?: { certFile: string; keyFile: string };
  dataDir: string;
  names: readonly string[];
  now: Date;
}): Promise<TlsMaterial> {
  if (input.files) {
    const [cert, key] = await Promise.all([readFile(input.files.certFile), readFile(input.files.keyFile)]);
    return { cert, key, sha256: certificateSha256(cert), source: 'files', created: false, certFile: input.files.certFile };
  }
  const certFile = join(input.dataDir, GENERATED_CERT_FILE);
  const keyFile = join(input.dataDir, GENERATED_KEY_FILE);
  const existing = await readPair(certFile, keyFile);
  if (existing) return { ...existing, sha256: certificateSha256(existing.cert), source: 'generated', created: false, certFile };
  await mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  const made = generateSelfSignedCertificate({ names: input.names, now: input.now });
  // The key first and 0600; `wx`: two hubs starting on one folder cannot both write a pair.
  await writeFile(keyFile, made.keyPem, { mode: 0o600, flag: 'wx' });
  await writeFile(certFile, made.certPem, { mode: 0o644, flag: 'wx' });
  const cert = Buffer.from(made.certPem);
  return { cert, key: Buffer.from(made.keyPem), sha256: certificateSha256(cert), source: 'generated', created: true, certFile };
}

async function readPair(certFile: string, keyFile: string): Promise<{ cert: Buffer; key: Buffer } | undefined> {
  try {
    const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
    return { cert, key };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The options node:https takes for this material. */
export const httpsOptionsOf = (material: TlsMaterial): SecureContextOptions & TlsOptions => ({
  key: material.key,
  cert: material.cert,
  ...HUB_TLS_VERSIONS,
});
