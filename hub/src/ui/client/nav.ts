/// <reference lib="dom" />
import { api } from './api.ts';

// Sign out ends the session on the hub too (POST /auth/logout), then shows the sign-in page.
document.getElementById('logout')?.addEventListener('click', () => {
  void api('POST', '/auth/logout', {}).finally(() => location.assign('/login'));
});
