/**
 * The body of `PUT /api/v1/watchlist/{id}/recipients` (docs/watchlists.md "Recipients"): the
 * whole set, every field required, unknown fields refused. Bounded: at most 20 chats and 20
 * webhook targets; a chat id is the bot platform's (an integer, negative for a group, at most
 * 52 bits: 16 digits), as a string or a safe JSON integer.
 */
import { z } from 'zod';
import { UUID_PATTERN } from '@alpr/shared/validation/uuid';

export const MAX_RECIPIENT_CHATS = 20;
export const MAX_RECIPIENT_WEBHOOKS = 20;

const chatId = z
  .union([z.string(), z.number().int().safe()])
  .transform(String)
  .refine((s) => /^-?[1-9]\d{0,15}$/.test(s), 'must be a chat id: an integer of at most 16 digits, negative for a group');

export const recipientsBodySchema = z
  .object({
    chats: z.array(chatId).max(MAX_RECIPIENT_CHATS, `at most ${MAX_RECIPIENT_CHATS} chats`),
    webhooks: z
      .array(z.string().regex(UUID_PATTERN, 'must be a webhook target id (a UUID)'))
      .max(MAX_RECIPIENT_WEBHOOKS, `at most ${MAX_RECIPIENT_WEBHOOKS} webhook targets`),
    mqtt: z.boolean(),
  })
  .strict();

export type RecipientsBody = z.infer<typeof recipientsBodySchema>;
