/**
 * A read whose source reports no confidence (vendor_a's pull list has none) travels and is
 * stored with `plate.confidence` 0: the wire contract (docs/protocol.md "plate.confidence") and
 * the hub's hash chain keep a number 0..1. 0 therefore means "not reported", never "0 % sure":
 * a camera does not keep a read it gives no chance of being right. Every place a person sees a
 * confidence says "not reported" for it, through these two functions.
 */
export const CONFIDENCE_NOT_REPORTED = 0;

/** The confidence the source reported, or null when it reported none. */
export function reportedConfidence(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) || value <= CONFIDENCE_NOT_REPORTED ? null : value;
}

/** "93 %", or "not reported". */
export function confidenceWords(value: number | null | undefined): string {
  const reported = reportedConfidence(value);
  return reported === null ? 'not reported' : `${Math.round(reported * 100)} %`;
}
