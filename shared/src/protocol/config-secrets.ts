/**
 * Secrets inside a collector's configuration (docs/collectors.md "Secrets in the
 * configuration"): an admin who sets an appliance's MQTT broker password, a camera password or
 * a push camera's secret in the configuration the hub pushes must not leave it in clear in the
 * hub's database or in the signed command that carries it.
 *
 * A value under a secret-named key travels and rests as a marker object in its place:
 *
 *   { "$escrowed": "<base64>" }  on the hub, sealed to the hub's escrow key (it can re-seal it
 *                                 for a replacement device without anyone typing it again);
 *   { "$sealed": "<base64>" }    in the pushed configuration and the appliance's central layer,
 *                                 sealed to one device's key (sealed-box.ts): only it opens it.
 *
 * Pure: the tree walk and the names. Each end supplies its own sealing (hub) or opening
 * (appliance), so this file holds no key.
 */
export const ESCROWED_MARKER = '$escrowed';
export const SEALED_MARKER = '$sealed';

/**
 * Key names that hold a secret: password, passphrase, secret, token (at the end: `token_header`
 * is a setting), API key, private key, credential. The appliance's wipe scrubs the same names
 * from its local file (appliance/src/lifecycle/scrub-config.ts).
 */
export const SECRET_KEY_NAME = /pass(word|phrase)?$|secret|token$|api_?key|private_?key|credential/i;

export type ConfigValue = unknown;
export type ConfigObject = Record<string, unknown>;

const isObject = (value: unknown): value is ConfigObject => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** `{ "$sealed": "..." }` (exactly that one key, a string): the marker's base64, else undefined. */
export function markerValue(value: unknown, marker: typeof ESCROWED_MARKER | typeof SEALED_MARKER): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  const inner = value[marker];
  return keys.length === 1 && typeof inner === 'string' ? inner : undefined;
}

const isSecretValue = (value: unknown): boolean =>
  typeof value === 'string' || markerValue(value, ESCROWED_MARKER) !== undefined || markerValue(value, SEALED_MARKER) !== undefined;

/**
 * A copy of `tree` where `replace` decides the value of each secret-named key that holds a
 * string or a marker: it gets the value and the key's dotted path (for messages); returning
 * undefined drops the key. Everything else is copied as is, through objects and arrays at any
 * depth (a secret-named key holding a table is walked like any other).
 */
export function mapSecretValues(tree: ConfigObject, replace: (value: unknown, path: string) => unknown): ConfigObject {
  const walk = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`));
    if (!isObject(value)) return value;
    const out: ConfigObject = {};
    for (const [key, inner] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (SECRET_KEY_NAME.test(key) && isSecretValue(inner)) {
        const replaced = replace(inner, at);
        if (replaced !== undefined) out[key] = replaced;
      } else {
        out[key] = walk(inner, at);
      }
    }
    return out;
  };
  return walk(tree, '') as ConfigObject;
}

/** Each sealed marker anywhere in `tree` replaced by what `open` makes of its base64 (the appliance's side). */
export function openSealedMarkers(tree: ConfigObject, open: (sealed: string, path: string) => string): ConfigObject {
  return mapSecretValues(tree, (value, path) => {
    const sealed = markerValue(value, SEALED_MARKER);
    return sealed === undefined ? value : open(sealed, path);
  });
}
