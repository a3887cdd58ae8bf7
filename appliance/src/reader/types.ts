/**
 * The contract between the on-appliance plate reader (this folder) and the cameras that feed it
 * frames (the ordinary-camera kind in `appliance/src/cameras/`). The reader finds and reads plates
 * in one still JPEG; deciding which frames to send, voting across a passage and building the
 * detection belong to the camera side.
 */

/** A rectangle in the frame's own pixels, origin top-left. */
export interface PlateBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One reading of a plate region: normalized text (A-Z, 0-9) and its confidence, 0..1. */
export interface PlateCandidate {
  plate: string;
  confidence: number;
}

/** A plate found in a frame: the best reading, where it is, and the other readings, best first. */
export interface PlateRead {
  plate: string;
  confidence: number;
  box: PlateBox;
  /** The other readings of the same region (never the best one again), best first, at most 10. */
  candidates: PlateCandidate[];
}

export interface ReadOptions {
  /** Plate formats to score against (`us`, `eu`, `br`, …); undefined scores on plate-likeness alone. */
  region?: string | undefined;
}

/** What a reader answers for one frame. `ms` is the reader's own time for the frame. */
export interface FrameResult {
  plates: PlateRead[];
  width: number;
  height: number;
  ms: number;
}

/**
 * Reads plates off the main loop (a worker thread). `read` rejects with `ReaderError` for a frame
 * it cannot decode and when a model file is missing (the message names the file).
 */
export interface FrameReader {
  read(jpeg: Uint8Array, options?: ReadOptions): Promise<FrameResult>;
  close(): Promise<void>;
}

export class ReaderError extends Error {
  constructor(
    readonly code: 'undecodable' | 'model_missing' | 'closed' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'ReaderError';
  }
}
