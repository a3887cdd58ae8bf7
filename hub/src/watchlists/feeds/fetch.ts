/**
 * One conditional GET of a feed (docs/watchlists.md "Feeds"): the validators of the last
 * good read go back as If-None-Match / If-Modified-Since, so an unchanged feed is one 304.
 * Redirects are not followed (the URL an admin set is the one read), the body is capped and
 * slow servers time out.
 */
import { request } from 'undici';

/** 10,000 rows of plate, notes, expiry and priority fit in well under 4 MB. */
export const MAX_FEED_BYTES = 4 * 1024 * 1024;
/** A feed server that takes longer than 30 s to answer or to send is counted as down. */
export const FEED_TIMEOUT_MS = 30_000;

export type FeedFetch =
  { kind: 'not_modified' } | { kind: 'body'; text: string; etag: string | null; lastModified: string | null } | { kind: 'error'; error: string };

export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export async function fetchFeed(url: string, validators: FeedValidators, options: { timeoutMs?: number } = {}): Promise<FeedFetch> {
  const timeoutMs = options.timeoutMs ?? FEED_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'text/csv, application/json;q=0.9, */*;q=0.1', 'user-agent': 'alpr-hub-watchlist-feed' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  try {
    const res = await request(url, { method: 'GET', headers, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs * 2) });
    if (res.statusCode === 304) {
      await res.body.dump();
      return { kind: 'not_modified' };
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      return { kind: 'error', error: `the feed server answered HTTP ${res.statusCode}` };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_FEED_BYTES) {
        res.body.destroy();
        return { kind: 'error', error: `the feed is larger than ${MAX_FEED_BYTES} bytes` };
      }
      chunks.push(chunk as Buffer);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      return { kind: 'error', error: 'the feed is not UTF-8 text' };
    }
    const header = (name: string): string | null => {
      const v = res.headers[name];
      return typeof v === 'string' && v.length <= 200 ? v : null;
    };
    return { kind: 'body', text, etag: header('etag'), lastModified: header('last-modified') };
  } catch (err) {
    const name = err instanceof Error ? `${err.name}${'code' in err ? ` ${String(err.code)}` : ''}` : 'error';
    return { kind: 'error', error: `the feed could not be read (${name.slice(0, 80)})` };
  }
}
