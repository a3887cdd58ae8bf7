import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { certificateSha256 } from './fingerprint.ts';
import { GENERATED_CERT_FILE } from './material.ts';

/**
 * The SHA-256 of the certificate a hub with this configuration serves, read from its file
 * without generating one: for the CLI, which runs beside (or instead of) the hub and never
 * loads the key. Undefined when the hub serves no TLS itself, or has not yet made its
 * certificate (it is generated at the first start).
 */
export async function servedCertificateSha256(config: Pick<HubConfig, 'transport' | 'tls' | 'dataDir'>): Promise<string | undefined> {
  if (config.transport !== 'https') return undefined;
  const file = config.tls?.certFile ?? join(config.dataDir, GENERATED_CERT_FILE);
  try {
    return certificateSha256(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
