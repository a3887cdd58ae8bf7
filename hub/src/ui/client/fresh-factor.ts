/// <reference lib="dom" />
import { ApiError, api } from './api.ts';
import { failed } from './failed.ts';
import { byId, say, show } from './dom.ts';

/*
 * What the admin pages share: a secret shown once behind "I have copied it" (claim codes,
 * API keys, one-time passwords), and the fresh second factor key and account operations need
 * (docs/admin-api.md): on the hub's 403 with `X-2FA-Fresh-Required`, ask for a code, post it
 * to /auth/2fa/reverify, and retry the action. The page holds the #secret and
 * #reverify-form elements (pages/admin-parts.tsx).
 */
let pending: (() => Promise<void>) | undefined;

export function reveal(title: string, help: string, secret: string): void {
  byId('secret-title').textContent = title;
  byId('secret-help').textContent = help;
  byId('secret-value').textContent = secret;
  const copied = byId<HTMLInputElement>('secret-copied');
  copied.checked = false;
  byId<HTMLButtonElement>('secret-done').disabled = true;
  show(byId('secret'), true);
  copied.focus();
}

export { failed };

export async function withFreshFactor(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof ApiError && err.status === 403 && err.headers.get('X-2FA-Fresh-Required') === 'true') {
      pending = action;
      show(byId('reverify-form'), true);
      byId<HTMLInputElement>('reverify-code').focus();
      return;
    }
    failed(err);
  }
}

byId('secret-copied').addEventListener('change', (event) => {
  byId<HTMLButtonElement>('secret-done').disabled = !(event.target as HTMLInputElement).checked;
});
byId('secret-done').addEventListener('click', () => {
  byId('secret-value').textContent = '';
  show(byId('secret'), false);
});
byId<HTMLFormElement>('reverify-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const code = byId<HTMLInputElement>('reverify-code').value.trim();
  api('POST', '/auth/2fa/reverify', { code })
    .then(() => {
      show(byId('reverify-form'), false);
      byId<HTMLInputElement>('reverify-code').value = '';
      const action = pending;
      pending = undefined;
      return action ? withFreshFactor(action) : undefined;
    })
    .catch((err: unknown) => say(err instanceof Error ? err.message : 'The code was not accepted.'));
});
