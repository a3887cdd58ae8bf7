/**
 * The demo's simulated cameras listen on fixed ports (README.md "Quick start": `DEMO_CAMERA_PORT`, `DEMO_NVR_PORT`), so a
 * camera an admin adds on the hub, pointing at a simulator's URL, still answers after `npm start`
 * restarts. When the port is taken (another demo, another program) the simulator falls back to a
 * free port and the caller says so: the demo still starts, and the printed URL is the one to use.
 */
export interface OnPreferredPort<T> {
  handle: T;
  /** Set when the preferred port was taken: the reason, for the start output. */
  fellBack?: string;
}

const TAKEN = new Set(['EADDRINUSE', 'EACCES']);

export async function startOnPreferredPort<T>(preferred: number, start: (port: number) => Promise<T>): Promise<OnPreferredPort<T>> {
  try {
    return { handle: await start(preferred) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !TAKEN.has(code)) throw error;
    return { handle: await start(0), fellBack: `port ${preferred} is taken (${code})` };
  }
}

/** A port from the environment, else the default; a value that is not a port is refused by name. */
export function demoPort(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}: a port from 1 to 65535, not ${JSON.stringify(raw)}`);
  return port;
}
