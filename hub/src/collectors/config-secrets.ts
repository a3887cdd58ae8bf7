import { ESCROWED_MARKER, SEALED_MARKER, mapSecretValues, markerValue, type ConfigObject } from '@alpr/shared/protocol/config-secrets';
import { sealToDevice } from '@alpr/shared/protocol/sealed-box';
import { EscrowUnreadable, escrowText, sealEscrowedTextForDevice } from './cameras/credential-escrow.ts';
import { HubError } from '../platform/errors.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';

/**
 * Secrets in an admin's collector configuration (docs/collectors.md "Secrets in the
 * configuration"; the markers in shared/src/protocol/config-secrets.ts).
 *
 * Stored: every string under a secret-named key (an MQTT password, a camera password, a push
 * secret) becomes `{ "$escrowed": ... }`, sealed to the hub's escrow key, before the row is
 * written, so the database never holds it in clear. Markers already there stay as they are.
 */
export function escrowConfigSecrets(hub: HubConfig, config: ConfigObject): ConfigObject {
  return mapSecretValues(config, (value) => (typeof value === 'string' ? { [ESCROWED_MARKER]: escrowText(hub, value) } : value));
}

/**
 * Pushed: each secret sealed to this device (`{ "$sealed": ... }`), which only its secret key
 * opens. A device that sent no public key at claim gets the configuration without them (as its
 * cameras come without credentials). A clear string left by a hub before this code is sealed
 * too, so the signed command never carries a secret in clear. A secret stored under another
 * hub secret cannot be re-sealed: HubError `conflict` (409) naming the key, so the admin's save
 * or the claim says what to set again instead of pushing a configuration without it.
 */
export function sealConfigSecretsFor(hub: HubConfig, config: ConfigObject, devicePublicKey: Uint8Array | undefined): ConfigObject {
  return mapSecretValues(config, (value, path) => {
    if (markerValue(value, SEALED_MARKER) !== undefined) return value;
    if (!devicePublicKey) return undefined;
    const escrowed = markerValue(value, ESCROWED_MARKER);
    if (escrowed !== undefined) {
      try {
        return { [SEALED_MARKER]: sealEscrowedTextForDevice(hub, escrowed, devicePublicKey, path) };
      } catch (error) {
        if (error instanceof EscrowUnreadable) throw new HubError('conflict', error.message);
        throw error;
      }
    }
    return typeof value === 'string' ? { [SEALED_MARKER]: sealToDevice(new Uint8Array(Buffer.from(value, 'utf8')), devicePublicKey) } : value;
  });
}
