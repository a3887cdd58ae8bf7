/// <reference lib="dom" />
/**
 * The JSON API from the dashboard. Requests are same-origin JSON, which the hub's CSRF
 * check accepts without a token (a cross-site page cannot send one without a preflight).
 * Errors become `ApiError` with the hub's words (`{error:{message}}` or `{detail}`), put for
 * a person by words.ts: the field to fix, never a route or a parameter's name.
 */
import { forPeople } from './words.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Headers,
  ) {
    super(message);
  }
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  const data: unknown = type.includes('json') ? await res.json() : undefined;
  if (!res.ok) throw new ApiError(res.status, errorText(data, res.status), res.headers);
  return data as T;
}

function errorText(data: unknown, status: number): string {
  if (data && typeof data === 'object') {
    const d = data as { error?: { message?: string }; detail?: unknown };
    if (d.error?.message) return forPeople(d.error.message);
    if (typeof d.detail === 'string') return forPeople(d.detail);
  }
  return status === 429 ? 'Too many requests: wait a minute and try again.' : `The hub answered ${status}.`;
}

/** Where a signed-out page goes: the sign-in page, then back here. */
export function signInAgain(): void {
  location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
}
