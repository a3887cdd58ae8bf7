import { FormData, request } from 'undici';

/**
 * The Telegram Bot API over HTTPS (undici). The base URL is configuration, so tests and the
 * demo run against the simulator (scripts/simulators/telegram-bot-api.ts).
 */
export class BotApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    /** Seconds to wait, from a 429's `parameters.retry_after`. */
    readonly retryAfter: number | undefined,
  ) {
    super(`Bot API ${status}: ${description}`);
  }
  /** The user blocked the bot (or deleted the chat): the link goes inactive. */
  get blocked(): boolean {
    return this.status === 403;
  }
}

export interface BotApi {
  call<T>(method: string, params: Record<string, unknown>, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<T>;
  /** `sendPhoto` with the image's bytes as a multipart upload (the hub's images are not public). */
  sendPhoto<T>(params: Record<string, string>, photo: Uint8Array, options?: { timeoutMs?: number }): Promise<T>;
}

export function botApi(baseUrl: string, token: string): BotApi {
  const base = `${baseUrl.replace(/\/+$/, '')}/bot${token}/`;
  async function answer<T>(res: Awaited<ReturnType<typeof request>>): Promise<T> {
    const body = (await res.body.json().catch(() => ({}))) as { ok?: boolean; result?: T; description?: string; parameters?: { retry_after?: number } };
    if (res.statusCode !== 200 || body.ok !== true) {
      throw new BotApiError(res.statusCode, body.description ?? 'no description', body.parameters?.retry_after);
    }
    return body.result as T;
  }
  return {
    async sendPhoto<T>(params: Record<string, string>, photo: Uint8Array, options: { timeoutMs?: number } = {}): Promise<T> {
      // The text parameters ride in the query string (the Bot API takes both at once): a
      // multipart form field would have its line breaks rewritten to CRLF by the encoder.
      const form = new FormData();
      form.set('photo', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'plate.jpg');
      const res = await request(`${base}sendPhoto?${new URLSearchParams(params).toString()}`, {
        method: 'POST',
        body: form,
        headersTimeout: options.timeoutMs ?? 30_000,
        bodyTimeout: options.timeoutMs ?? 30_000,
      });
      return answer<T>(res);
    },
    async call<T>(method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
      const res = await request(`${base}${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        headersTimeout: options.timeoutMs ?? 65_000,
        bodyTimeout: options.timeoutMs ?? 65_000,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return answer<T>(res);
    },
  };
}
