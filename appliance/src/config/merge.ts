/**
 * Configuration layers (docs/appliance-lifecycle.md): base defaults, then the hub-pushed
 * configuration, then local overrides; later layers win. Objects merge key by key at every
 * depth; arrays and scalars are replaced whole (merging two lists element by element would
 * invent entries nobody configured), except `cameras`, which merge by camera id
 * (mergeCameraLists): cameras entered on the hub and on the setup page run side by side.
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
      if (key === 'cameras' && Array.isArray(current) && Array.isArray(value)) out[key] = mergeCameraLists(current, value);
      else out[key] = isTree(current) && isTree(value) ? mergeLayers(current, value) : value;
    }
  }
  return out;
}

const idOf = (entry: unknown): string | undefined => (isTree(entry) && typeof entry['id'] === 'string' ? entry['id'] : undefined);

/**
 * The precedence rule for cameras (docs/cameras-central.md "Precedence"): every camera of
 * either list runs; a camera in both (same id) is the earlier entry overridden field by
 * field by the later one, so a local entry can adjust a hub camera (a LAN-only host name)
 * without dropping the hub's other fields. Order: the earlier list, then new ids of the later.
 */
export function mergeCameraLists(earlier: readonly unknown[], later: readonly unknown[]): unknown[] {
  const laterById = new Map<string, unknown>();
  for (const entry of later) {
    const id = idOf(entry);
    if (id !== undefined) laterById.set(id, entry);
  }
  const merged = earlier.map((entry) => {
    const id = idOf(entry);
    const override = id === undefined ? undefined : laterById.get(id);
    return isTree(entry) && isTree(override) ? mergeLayers(entry, override) : entry;
  });
  const earlierIds = new Set(earlier.map(idOf).filter((id) => id !== undefined));
  return [
    ...merged,
    ...later.filter((entry) => {
      const id = idOf(entry);
      return id === undefined || !earlierIds.has(id);
    }),
  ];
}
