/**
 * Configuration layers (docs/appliance-lifecycle.md): base defaults, then the hub-pushed
 * configuration, then local overrides; later layers win. Objects merge key by key at every
 * depth; arrays and scalars are replaced whole (a camera list is one value: merging two
 * lists element by element would invent cameras nobody configured).
 */
export type ConfigTree = { [key: string]: unknown };

const isTree = (value: unknown): value is ConfigTree => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

export function mergeLayers(...layers: readonly (ConfigTree | undefined)[]): ConfigTree {
  const out: ConfigTree = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      // Own keys only: a TOML key named __proto__ must not reach the prototype.
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      const current = out[key];
      out[key] = isTree(current) && isTree(value) ? mergeLayers(current, value) : value;
    }
  }
  return out;
}
