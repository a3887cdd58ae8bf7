/**
 * One error class for the vault and the key store, with a closed set of codes, so the
 * setup page and the logs can say exactly why the stored credentials cannot be used.
 */
export const VAULT_ERROR_CODES = [
  /** No vault.json / credentials.enc: the appliance is not claimed (or was wiped). */
  'not_found',
  /** The derived key does not open the vault: other hardware, collector id or install time. */
  'device_mismatch',
  /** A sealed entry failed authentication: the file was edited or is corrupt. */
  'tampered',
  /** The file is not the JSON shape we write. */
  'corrupt',
  /** No usable hardware serial could be read. */
  'no_hardware_serial',
  /** A sealed credential from the hub could not be opened with the device key. */
  'sealed_unreadable',
] as const;
export type VaultErrorCode = (typeof VAULT_ERROR_CODES)[number];

export class VaultError extends Error {
  override name = 'VaultError';
  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
  }
}
