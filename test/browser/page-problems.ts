/**
 * What an operator would see go wrong on a page without looking at it: console errors (a
 * script that threw, a Content-Security-Policy refusal, "Failed to load resource") and
 * requests that failed or were answered 4xx/5xx (a 404 for a feed a list does not have, a
 * /favicon.ico nobody serves). A test watches a page from its first request and takes the
 * list at each step, so a problem is reported at the step that caused it.
 */
import type { Page } from 'playwright-core';

export interface PageProblems {
  /** Everything noticed since the last call, and a fresh start. */
  take(): string[];
}

export function watchProblems(page: Page): PageProblems {
  let seen: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') seen.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'failed';
    // A navigation that replaces the page aborts what the old page still had in flight.
    if (reason === 'net::ERR_ABORTED') return;
    seen.push(`request: ${request.method()} ${new URL(request.url()).pathname} ${reason}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) seen.push(`response: ${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
  });
  return {
    take() {
      const out = seen;
      seen = [];
      return out;
    },
  };
}
