import type { CameraStatus } from './status.ts';

/** A started runner: one per configured camera. */
export interface CameraRunner {
  readonly id: string;
  /** Stops polling/reading, waits for the step in progress, closes connections. */
  stop(): Promise<void>;
  status(): CameraStatus;
}
