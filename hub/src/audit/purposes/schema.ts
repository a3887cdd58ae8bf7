/**
 * What a purpose and a case number look like (docs/security.md "Purposes"). Pure: the
 * database check that a code names an active purpose is in check.ts.
 */
import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';

/** Lower-case words joined by `_`, 2 to 40 characters: stable keys that audit rows name. */
export const PURPOSE_CODE = /^[a-z][a-z0-9_]{1,39}$/;
export const purposeCodeSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'a purpose is required (GET /api/v1/purposes lists them)' : 'must be text') })
  .regex(PURPOSE_CODE, 'a purpose code (GET /api/v1/purposes lists them), e.g. stolen_vehicle');

/**
 * A case number: 1 to 64 characters, starting with a letter or digit, then letters, digits,
 * spaces and `. _ : / # -`. Case references seen in practice ("2026-000117", "CR/26/4411",
 * "INC#5521") fit in 20; 64 leaves room without letting a paragraph pass for one.
 */
export const MAX_CASE_NUMBER = 64;
export const caseNumberSchema = safeText(
  z
    .string()
    .trim()
    .min(1, 'is empty')
    .max(MAX_CASE_NUMBER, `at most ${MAX_CASE_NUMBER} characters`)
    .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._:/#-]*$/u, 'letters, digits, spaces and . _ : / # - only, starting with a letter or digit'),
);

/**
 * The free-text note beside the purpose (the `reason` every lookup used to require alone).
 * Optional since purposes came: the purpose is the statement; a blank note counts as none.
 */
export const noteSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  safeText(z.string().trim().min(3, 'at least 3 characters when given').max(200)).optional(),
);

/** The fields every lookup takes, in a query string or a JSON body. */
export const lookupPurposeFields = {
  purpose: purposeCodeSchema,
  case_number: caseNumberSchema.optional(),
  reason: noteSchema,
};

/** An admin's new purpose (POST /api/v1/admin/purposes). */
export const createPurposeSchema = z
  .object({
    code: purposeCodeSchema,
    label: safeText(z.string().trim().min(1).max(100)),
    description: safeText(z.string().trim().max(500)).default(''),
    case_number_required: z.boolean().default(false),
  })
  .strict();
export type CreatePurpose = z.infer<typeof createPurposeSchema>;
