import {
  heartbeatResponseSchema,
  type CollectorRefusalReason,
  type CommandAckRequest,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '@alpr/shared/protocol/collector';
import { commandAckPath, HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { collectorRefusalOf } from './refusal.ts';
import { describeNetworkError, postJson, type HubReply, type HubTarget } from './request.ts';
import { HEARTBEAT_MAX_RESPONSE_BYTES, HEARTBEAT_TIMEOUTS } from './timeouts.ts';

/**
 * The two lifecycle calls to the hub (docs/protocol.md "Heartbeat, commands, claim"). Never
 * throw: every failure is a value the loop can back off on.
 */
export type HubCallResult<T> =
  | { ok: true; value: T }
  /** `refusal`: the hub's `error.reason` when it is one the appliance acts on (collector_replaced...). */
  | { ok: false; status?: number; keyRejected: boolean; message: string; refusal?: CollectorRefusalReason };

const post = (target: HubTarget, path: string, apiKey: string, json: unknown): Promise<HubReply> =>
  postJson(target, { path, apiKey, json, timeouts: HEARTBEAT_TIMEOUTS, maxResponseBytes: HEARTBEAT_MAX_RESPONSE_BYTES });

/** A reply that is not an answer: network failure or oversized body. */
function unanswered(reply: Exclude<HubReply, { kind: 'reply' }>): HubCallResult<never> {
  const message = reply.kind === 'network' ? `network: ${describeNetworkError(reply.error)}` : `HTTP ${reply.status} with an oversized body`;
  return { ok: false, keyRejected: false, message };
}

function failure(status: number, text: string): HubCallResult<never> {
  let message = `HTTP ${status}`;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; detail?: unknown };
    const detail = body.error?.message ?? body.detail;
    if (typeof detail === 'string') message += `: ${detail.slice(0, 200)}`;
  } catch {
    // not JSON: the status says enough
  }
  const refusal = collectorRefusalOf(text);
  return refusal ? { ok: false, status, keyRejected: status === 401, message, refusal } : { ok: false, status, keyRejected: status === 401, message };
}

export async function postHeartbeat(target: HubTarget, apiKey: string, body: HeartbeatRequest): Promise<HubCallResult<HeartbeatResponse>> {
  const reply = await post(target, HEARTBEAT_PATH, apiKey, body);
  if (reply.kind !== 'reply') return unanswered(reply);
  if (reply.status < 200 || reply.status >= 300) return failure(reply.status, reply.text);
  try {
    return { ok: true, value: heartbeatResponseSchema.parse(JSON.parse(reply.text)) };
  } catch {
    return { ok: false, status: reply.status, keyRejected: false, message: 'heartbeat response is not the protocol shape' };
  }
}

/** `gone`: the hub has no such command for us (404): nothing to acknowledge, ever. */
export async function postAck(target: HubTarget, apiKey: string, commandId: string, ack: CommandAckRequest): Promise<HubCallResult<'acknowledged' | 'gone'>> {
  const reply = await post(target, commandAckPath(commandId), apiKey, ack);
  if (reply.kind !== 'reply') return unanswered(reply);
  if (reply.status === 404) return { ok: true, value: 'gone' };
  if (reply.status < 200 || reply.status >= 300) return failure(reply.status, reply.text);
  return { ok: true, value: 'acknowledged' };
}
