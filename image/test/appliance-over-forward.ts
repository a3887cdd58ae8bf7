import { request } from 'undici';

/**
 * The appliance inside the guest, through the host's loopback forward to its port 8080. The
 * guest sees these requests from qemu's gateway 10.0.2.2: a LAN address, as an installer's
 * laptop would be.
 */
export interface GuestStatus {
  claimed: boolean;
  hub_url: string | null;
  buffer: { states: Record<string, number> };
  cameras: {
    id: string;
    state: string;
    lastError: string | null;
    /** Ordinary cameras only: what their frames went through (docs/ordinary-cameras.md "Status"). */
    frames?: { taken: number; unchanged: number; dropped: number; read: number; passages: number; lastReadFrameAt: string | null };
  }[];
  warnings: string[];
}

export function applianceAt(port: number) {
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    /** Status code and body of the setup page (`/`); 0 when nothing answers. */
    page: async (): Promise<{ status: number; body: string }> => {
      try {
        const r = await request(`${base}/`, { headersTimeout: 10_000, bodyTimeout: 10_000 });
        return { status: r.statusCode, body: await r.body.text() };
      } catch {
        return { status: 0, body: '' };
      }
    },
    status: async (): Promise<GuestStatus> => {
      const r = await request(`${base}/api/v1/status`, { headersTimeout: 10_000 });
      if (r.statusCode !== 200) throw new Error(`status answered ${r.statusCode}`);
      return (await r.body.json()) as GuestStatus;
    },
    claim: async (hubUrl: string, claimCode: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const r = await request(`${base}/setup/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hub_url: hubUrl, claim_code: claimCode }),
        // Vault key derivation (100,000 PBKDF2 rounds) under software emulation takes a while.
        headersTimeout: 120_000,
      });
      return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
    },
  };
}

export const pending = (s: GuestStatus): number => (s.buffer.states.pending ?? 0) + (s.buffer.states.in_flight ?? 0);

/** Polls `check` until true or `timeoutMs` (bounded waits, no fixed sleeps). */
export async function until(check: () => Promise<boolean>, timeoutMs: number, stepMs = 1000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return false;
}
