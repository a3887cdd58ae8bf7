import { z } from 'zod';
import { parseJsonBytes } from './json.ts';
import type { Result } from './result.ts';
import { frameJson, splitPacket } from './packet.ts';

/**
 * One realtime message, whichever socket it came from: a binary packet of the private
 * updates WebSocket (docs/camera-formats.md "vendor_b updates WebSocket") or a JSON text of the
 * Integration API events WebSocket (docs/camera-formats.md "vendor_b integration WebSocket").
 * `data` is decoded lazily: most private-socket traffic is device state (`camera`, `nvr`...) that
 * we drop after reading the action frame, so we never inflate its data frame.
 */
export interface UpdateMessage {
  action: string;
  modelKey: string;
  id: string;
  data: () => Result<unknown>;
}

const actionSchema = z.object({
  action: z.string(),
  modelKey: z.string(),
  id: z.string().min(1).max(128),
});

const integrationSchema = z.object({
  type: z.string(),
  item: z.object({ id: z.string().min(1).max(128), modelKey: z.string().optional() }).loose(),
});

const OPEN_BRACE = 0x7b;
const isWhitespace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** True when the first non-blank byte is `{`: a text (Integration API) message. */
export function isJsonText(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (isWhitespace(b)) continue;
    return b === OPEN_BRACE;
  }
  return false;
}

/** `{type, item}` as an update message; the Integration socket only carries events. */
export function integrationMessage(root: unknown): Result<UpdateMessage> {
  const parsed = integrationSchema.safeParse(root);
  if (!parsed.success) return { ok: false, reason: 'text message is not {type, item:{id}}' };
  const { type, item } = parsed.data;
  return {
    ok: true,
    value: { action: type, modelKey: item.modelKey ?? 'event', id: item.id, data: () => ({ ok: true, value: item }) },
  };
}

function decodeText(bytes: Uint8Array): Result<UpdateMessage> {
  const root = parseJsonBytes(bytes);
  if (!root.ok) return { ok: false, reason: `text message: ${root.reason}` };
  return integrationMessage(root.value);
}

function decodeBinary(bytes: Uint8Array): Result<UpdateMessage> {
  const frames = splitPacket(bytes);
  if (!frames.ok) return frames;
  const action = frameJson(frames.value.action);
  if (!action.ok) return { ok: false, reason: `action frame: ${action.reason}` };
  const header = actionSchema.safeParse(action.value);
  if (!header.success) return { ok: false, reason: 'action frame lacks action, modelKey or id' };
  const dataFrame = frames.value.data;
  return {
    ok: true,
    value: {
      ...header.data,
      data: () => {
        const data = frameJson(dataFrame);
        return data.ok ? data : { ok: false, reason: `data frame: ${data.reason}` };
      },
    },
  };
}

export const decodeMessage = (bytes: Uint8Array): Result<UpdateMessage> => (isJsonText(bytes) ? decodeText(bytes) : decodeBinary(bytes));
