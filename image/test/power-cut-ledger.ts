/**
 * The power-cut test's bookkeeping, kept apart from the VM handling: what was acknowledged
 * (by the appliance to the pushing camera, by the hub to the appliance) against what the hub
 * holds at the end.
 */
// A type, not an interface: the database session's row constraint needs an index signature.
export type HubRow = {
  detection_id: string;
  plate_normalized: string;
  captured_at: string;
};

export interface LedgerVerdict {
  /** Acknowledged by the appliance to the camera, absent at the hub. */
  lostFromCamera: string[];
  /** Seen at the hub after some cut, absent at the end. */
  lostFromHub: string[];
  /** Detection ids the hub holds more than once. */
  doubledIds: string[];
  /** The same plate and capture time under more than one row (a read stored twice under two ids). */
  doubledReads: string[];
}

export function judge(ackedByAppliance: Iterable<string>, ackedByHub: Iterable<string>, rows: HubRow[]): LedgerVerdict {
  const perId = new Map<string, number>();
  const perRead = new Map<string, number>();
  for (const row of rows) {
    perId.set(row.detection_id, (perId.get(row.detection_id) ?? 0) + 1);
    const read = `${row.plate_normalized}@${row.captured_at}`;
    perRead.set(read, (perRead.get(read) ?? 0) + 1);
  }
  const missing = (ids: Iterable<string>): string[] => [...new Set(ids)].filter((id) => !perId.has(id));
  return {
    lostFromCamera: missing(ackedByAppliance),
    lostFromHub: missing(ackedByHub),
    doubledIds: [...perId].filter(([, n]) => n > 1).map(([id]) => id),
    doubledReads: [...perRead].filter(([, n]) => n > 1).map(([read]) => read),
  };
}

/** mulberry32: the cut moments repeat for a given seed (ALPR_POWER_CUT_SEED). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
