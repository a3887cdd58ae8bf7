import { z } from 'zod';

/**
 * The one rule for text from outside (docs/security.md "Hostile input"): no NUL and no
 * lone UTF-16 surrogate, anywhere. PostgreSQL refuses both in `text`/`jsonb` (a 500 when
 * it reaches the database), they break logs and HTML, and no honest client sends them.
 * A well-formed surrogate pair (an emoji) is fine.
 */
const HOSTILE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string is refused, or undefined when it is acceptable. */
export function textProblem(value: string): string | undefined {
  const match = HOSTILE.exec(value);
  if (!match) return undefined;
  return match[0] === '\u0000' ? 'contains a NUL character' : 'contains a lone UTF-16 surrogate';
}

export interface HostileText {
  /** Dotted path of the offending field (`config.cameras.0.name`); `(body)` at the root. */
  field: string;
  problem: string;
}

/** Nesting the walk follows; the edges cap JSON depth far below this before parsing. */
const WALK_DEPTH_LIMIT = 256;

/**
 * First hostile string in a decoded body (object keys included, so a key cannot smuggle a
 * NUL into `jsonb`), depth first. Iterative, so a deep value cannot overflow the stack.
 */
export function findHostileText(value: unknown): HostileText | undefined {
  const stack: { value: unknown; path: readonly (string | number)[] }[] = [{ value, path: [] }];
  const fieldOf = (path: readonly (string | number)[]): string => (path.length === 0 ? '(body)' : path.map(String).join('.'));
  while (stack.length > 0) {
    const next = stack.pop();
    if (!next) break;
    const { value: v, path } = next;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { field: fieldOf(path), problem };
    } else if (typeof v === 'object' && v !== null) {
      if (path.length >= WALK_DEPTH_LIMIT) return { field: fieldOf(path), problem: `nests deeper than ${WALK_DEPTH_LIMIT} levels` };
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ value: v[i], path: [...path, i] });
      } else {
        const entries = Object.entries(v);
        for (let i = entries.length - 1; i >= 0; i -= 1) {
          const [key, member] = entries[i] as [string, unknown];
          const keyProblem = textProblem(key);
          if (keyProblem) return { field: fieldOf([...path, key]), problem: `name ${keyProblem}` };
          stack.push({ value: member, path: [...path, key] });
        }
      }
    }
  }
  return undefined;
}

/**
 * zod side of the same rule, for schemas that take text outside an HTTP edge (or want the
 * field named in their own error): `safeText()` instead of `z.string()`, or
 * `safeText(z.string().max(20))`.
 */
export function safeText(schema: z.ZodString = z.string()): z.ZodString {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}
