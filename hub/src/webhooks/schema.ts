/** The admin API's webhook bodies (docs/admin-api.md "Webhooks"). */
import { z } from 'zod';
import { webhookFilterSchema } from './filter.ts';
import { WEBHOOK_EVENTS } from './payload.ts';
import { MAX_URL_LENGTH, targetUrlProblem } from '../platform/http/outbound-url.ts';

const url = z
  .string()
  .max(MAX_URL_LENGTH)
  .superRefine((value, ctx) => {
    const problem = targetUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');
const events = z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length);

export const createWebhookSchema = z.object({ name, url, events, filter: webhookFilterSchema.default({}), enabled: z.boolean().default(true) }).strict();
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const editWebhookSchema = z
  .object({ name: name.optional(), url: url.optional(), events: events.optional(), filter: webhookFilterSchema.optional(), enabled: z.boolean().optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'nothing to change');
export type EditWebhookInput = z.infer<typeof editWebhookSchema>;
