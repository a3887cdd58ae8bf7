import { request, type Dispatcher } from 'undici';
import {
  heartbeatResponseSchema,
  type CommandAckRequest,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '@alpr/shared/protocol/collector';

/**
 * The two lifecycle calls to the hub (docs/protocol.md "Heartbeat, commands, claim"). Never
 * throw: every failure is a value the loop can back off on. The key goes in the header only
 * and never into an error text.
 */
export const HEARTBEAT_PATH = '/api/v1/heartbeat';
export const ackPath = (commandId: string): string => `/api/v1/commands/${encodeURIComponent(commandId)}/ack`;

/** 10 s: the hub answers a heartbeat in milliseconds; a stalled link must not hold the loop for long. */
const TIMEOUT_MS = 10_000;
/** 20 commands of a few KB each; anything far larger is not our hub. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface HubClientDeps {
  hubUrl: string;
  dispatcher?: Dispatcher;
}

export type HubCallResult<T> =
  | { ok: true; value: T }
  | { ok: false; status?: number; keyRejected: boolean; message: string };

async function postJson(deps: HubClientDeps, path: string, apiKey: string, body: unknown): Promise<{ status: number; text: string } | { error: string }> {
  try {
    const response = await request(`${deps.hubUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        response.body.destroy();
        return { error: `HTTP ${response.statusCode} with an oversized body` };
      }
      chunks.push(Buffer.from(chunk as Buffer));
    }
    return { status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { error: `network: ${typeof code === 'string' ? `${code} ` : ''}${error instanceof Error ? error.message : String(error)}` };
  }
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
  return { ok: false, status, keyRejected: status === 401, message };
}

export async function postHeartbeat(deps: HubClientDeps, apiKey: string, body: HeartbeatRequest): Promise<HubCallResult<HeartbeatResponse>> {
  const reply = await postJson(deps, HEARTBEAT_PATH, apiKey, body);
  if ('error' in reply) return { ok: false, keyRejected: false, message: reply.error };
  if (reply.status < 200 || reply.status >= 300) return failure(reply.status, reply.text);
  try {
    return { ok: true, value: heartbeatResponseSchema.parse(JSON.parse(reply.text)) };
  } catch {
    return { ok: false, status: reply.status, keyRejected: false, message: 'heartbeat response is not the protocol shape' };
  }
}

/** `gone`: the hub has no such command for us (404): nothing to acknowledge, ever. */
export async function postAck(
  deps: HubClientDeps,
  apiKey: string,
  commandId: string,
  ack: CommandAckRequest,
): Promise<HubCallResult<'acknowledged' | 'gone'>> {
  const reply = await postJson(deps, ackPath(commandId), apiKey, ack);
  if ('error' in reply) return { ok: false, keyRejected: false, message: reply.error };
  if (reply.status === 404) return { ok: true, value: 'gone' };
  if (reply.status < 200 || reply.status >= 300) return failure(reply.status, reply.text);
  return { ok: true, value: 'acknowledged' };
}
