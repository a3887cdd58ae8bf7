import { HubError, type HubErrorCode } from '../errors.ts';

/**
 * Machine-readable reasons for collector-facing rejections that share an HTTP status
 * (an expired and a used claim code are both 410). Rendered as `error.reason` beside the
 * usual `{ code, message }` by the collector routes' error handler.
 */
export const COLLECTOR_ERROR_REASONS = [
  'claim_code_unknown',
  'claim_code_expired',
  'claim_code_used',
  'hardware_already_registered',
  'hardware_mismatch',
  'provisioning_token_unknown',
  'provisioning_token_expired',
  'provisioning_token_used',
  'collector_not_claimable',
  'hub_public_url_unset',
] as const;
export type CollectorErrorReason = (typeof COLLECTOR_ERROR_REASONS)[number];

export class CollectorError extends HubError {
  readonly reason: CollectorErrorReason;
  constructor(code: HubErrorCode, reason: CollectorErrorReason, message: string, headers: Record<string, string> = {}) {
    super(code, message, headers);
    this.name = 'CollectorError';
    this.reason = reason;
  }
}
