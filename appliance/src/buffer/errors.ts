/** Closed set of buffer failures a caller can act on (everything else is a bug or I/O). */
export const BUFFER_ERROR_CODES = ['invalid_detection', 'read_only'] as const;
export type BufferErrorCode = (typeof BUFFER_ERROR_CODES)[number];

export class BufferError extends Error {
  readonly code: BufferErrorCode;

  constructor(code: BufferErrorCode, message: string) {
    super(message);
    this.name = 'BufferError';
    this.code = code;
  }
}
