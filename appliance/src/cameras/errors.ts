/**
 * The two ways a runner's cycle fails. They are told apart because only the first says
 * anything about the camera: a refused sink (buffer full, disk error) must not mark a
 * healthy camera OFFLINE, yet both keep the cursor where it was and back off.
 */

/** The camera could not be reached or answered something other than expected (rule 1). */
export class CameraConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CameraConnectionError';
  }
}

/** The sink did not commit a detection; nothing after it was acknowledged. */
export class SinkRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SinkRefusedError';
  }
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
