/**
 * Frigate repeats an event's state in every `update` and in its `end` (a better snapshot, a zone
 * change: several a second while a car moves). One read per event and plate is kept
 * (docs/readers.md "Frigate"); this remembers keys already committed so repeats cost no buffer
 * query and no snapshot download. The buffer's detection id check stays the durable guard
 * (after a restart this memory is empty). Pure: no clock, no I/O.
 */
export interface FrigateDeduper {
  /** True when this key was committed before. */
  seen(key: string): boolean;
  /** Remember a committed key. */
  remember(key: string): void;
  readonly size: number;
}

/** 2,000 keys: an event lasts seconds to minutes, and even a busy gate sees a few hundred an hour. */
export function createFrigateDeduper(capacity = 2_000): FrigateDeduper {
  const keys = new Set<string>();
  return {
    seen: (key) => keys.has(key),
    remember(key) {
      keys.delete(key);
      keys.add(key);
      while (keys.size > capacity) keys.delete(keys.values().next().value as string);
    },
    get size() {
      return keys.size;
    },
  };
}
