/**
 * The bench's collectors, without I/O: each collector posts one batch at a time, taking the
 * next batch of the chunk when its last is answered (closed loop), or, paced, not before the
 * batch is due (open loop). Pure over its ports so the pacing and the latency accounting can
 * be tested on a virtual clock (ingest-uploaders.ts wires it to undici and performance.now).
 */
export interface CollectorPorts<B> {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Posts one batch with a collector's key; resolves to the status to report. */
  post(body: B, apiKey: string): Promise<string>;
  answered(latencyMs: number, status: string): void;
}

export interface ChunkPlan {
  keys: readonly string[];
  batchSize: number;
  /**
   * Detections per second offered by all collectors together, or undefined for flat out.
   * Paced, batch i is due at i x batchSize / rate after the chunk's start and its latency
   * runs from that moment: time spent waiting for a free collector counts (no coordinated
   * omission). Flat out, latency runs from the send.
   */
  ratePerSecond?: number;
}

/** Posts every body of one chunk; resolves to the chunk's wall time in ms. */
export async function uploadChunk<B>(bodies: readonly B[], plan: ChunkPlan, ports: CollectorPorts<B>): Promise<number> {
  const started = ports.now();
  let next = 0;
  const collector = async (apiKey: string): Promise<void> => {
    for (let i = next++; i < bodies.length; i = next++) {
      const body = bodies[i] as B;
      const due = plan.ratePerSecond ? started + (i * plan.batchSize * 1000) / plan.ratePerSecond : undefined;
      if (due !== undefined && due > ports.now()) await ports.sleep(due - ports.now());
      const t0 = due ?? ports.now();
      const status = await ports.post(body, apiKey);
      ports.answered(ports.now() - t0, status);
    }
  };
  await Promise.all(plan.keys.map(collector));
  return ports.now() - started;
}
